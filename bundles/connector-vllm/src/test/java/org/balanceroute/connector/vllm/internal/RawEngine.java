package org.balanceroute.connector.vllm.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An engine written on raw sockets, for the tests that need the bytes on the wire in their hands.
 * Every accepted connection is served on its own thread, so what one connection carries, or does
 * not carry, never holds up another - what a real engine does, and what the connector may count
 * on: Jetty's HttpClient hands a queued request to whichever of its connections opens first, and
 * it can open a connection that no request then uses (it counts a queued request again when it
 * looks for a connection to open, e.g. after a health check's {@code Connection: close}). An
 * engine that read its connections one at a time, in accept order, sat on such an idle
 * connection until the client's idle timeout (30 s), while the decode's POST waited unread in
 * the backlog behind it.
 *
 * <p>Each connection carries one request: a {@code GET} (a health check) is answered 200 with
 * {@code Connection: close}; a connection closed before a whole request head (never used by the
 * client, or a test's filler) is dropped; a {@code POST}'s body is read past and the connection
 * handed to the test's {@link Post}, which answers it. Accepting stops when the listener is
 * closed (the tests own it: its backlog can matter).
 */
final class RawEngine {

    /** Answers one POST whose head and body were read; the connection is closed when it returns. */
    interface Post {
        void answer(InputStream in, OutputStream out) throws IOException, InterruptedException;
    }

    private static final Pattern CONTENT_LENGTH = Pattern.compile("(?i)content-length: *(\\d+)");

    private RawEngine() {
    }

    /** Starts accepting on {@code listener}, every connection on its own (daemon) thread. */
    static void serve(ServerSocket listener, Post post) {
        Thread acceptor = new Thread(() -> {
            while (true) {
                Socket s;
                try {
                    s = listener.accept();
                } catch (IOException closed) {
                    return;
                }
                Thread connection = new Thread(() -> serve(s, post), "raw-engine-" + s.getPort());
                connection.setDaemon(true);
                connection.start();
            }
        }, "raw-engine-accept-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private static void serve(Socket s, Post post) {
        try (s) {
            InputStream in = s.getInputStream();
            String head = readHead(in);
            if (!head.endsWith("\r\n\r\n")) {
                return; // closed before a request: a connection the client never used, or a filler
            }
            OutputStream out = s.getOutputStream();
            if (head.startsWith("GET ")) {
                out.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return;
            }
            skipBody(in, head);
            post.answer(in, out);
        } catch (IOException | InterruptedException e) {
            // the client went away (what the drain tests provoke), or the test ended: its assertions tell
        }
    }

    /** A request's status line and headers, through the blank line (less if the peer closed first). */
    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int b;
        while (!head.toString().endsWith("\r\n\r\n") && (b = in.read()) >= 0) {
            head.append((char) b);
        }
        return head.toString();
    }

    /** Reads past the body its {@code Content-Length} announces. */
    private static void skipBody(InputStream in, String head) throws IOException {
        Matcher m = CONTENT_LENGTH.matcher(head);
        in.readNBytes(m.find() ? Integer.parseInt(m.group(1)) : 0);
    }
}
