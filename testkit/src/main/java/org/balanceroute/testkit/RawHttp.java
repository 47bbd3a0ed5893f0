package org.balanceroute.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 by hand over one socket, for requests a client library will not send: no or any
 * {@code Content-Type}, a wrong {@code Content-Length}, a body in slow pieces, a header block of
 * any size. Each request closes its connection ({@code Connection: close}); the answer is read
 * until the server closes, then split into status, headers and the (de-chunked) body.
 */
public final class RawHttp {

    /** An answer; status 0 when none came within the read timeout (or the connection was reset). */
    public record Answer(int status, Map<String, String> headers, String body, String problem) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private RawHttp() {
    }

    /** The request head for {@code method path} with these header lines (each "Name: value"), CRLFs added. */
    public static byte[] head(String method, String path, int port, String... headers) {
        StringBuilder b = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: 127.0.0.1:")
                .append(port).append("\r\nConnection: close\r\n");
        for (String h : headers) {
            b.append(h).append("\r\n");
        }
        return b.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    public static Answer send(int port, byte[] head, byte[] body, int readTimeoutMillis) throws IOException {
        return send(port, head, body == null ? new byte[0][] : new byte[][] {body}, 0, readTimeoutMillis);
    }

    /** Sends the head, then each piece of the body {@code gapMillis} apart, and reads the answer. */
    public static Answer send(int port, byte[] head, byte[][] pieces, long gapMillis, int readTimeoutMillis) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(readTimeoutMillis);
            OutputStream out = s.getOutputStream();
            try {
                out.write(head);
                for (int i = 0; i < pieces.length; i++) {
                    if (i > 0 && gapMillis > 0) {
                        Thread.sleep(gapMillis);
                    }
                    out.write(pieces[i]);
                    out.flush();
                }
            } catch (IOException e) {
                // the server may answer and close before it has read everything (413, 431): read what it said
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            return read(s.getInputStream());
        }
    }

    private static Answer read(InputStream in) throws IOException {
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        byte[] buf = new byte[16384];
        String problem = null;
        try {
            for (int n; (n = in.read(buf)) >= 0; ) {
                raw.write(buf, 0, n);
            }
        } catch (SocketTimeoutException e) {
            problem = "no (complete) answer within the read timeout";
        } catch (IOException e) {
            problem = "connection error: " + e.getMessage();
        }
        String text = raw.toString(StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (!text.startsWith("HTTP/1.") || end < 0) {
            return new Answer(0, Map.of(), text, problem == null ? "no HTTP answer" : problem);
        }
        String[] lines = text.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
            }
        }
        byte[] bytes = raw.toByteArray();
        byte[] body = java.util.Arrays.copyOfRange(bytes, end + 4, bytes.length);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            body = dechunk(body);
        }
        return new Answer(status, headers, new String(body, StandardCharsets.UTF_8), problem);
    }

    private static byte[] dechunk(byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = 0;
        while (i < b.length) {
            int eol = indexOf(b, i);
            if (eol < 0) {
                break;
            }
            String size = new String(b, i, eol - i, StandardCharsets.ISO_8859_1).split(";")[0].trim();
            int n;
            try {
                n = Integer.parseInt(size, 16);
            } catch (NumberFormatException e) {
                break;
            }
            if (n == 0) {
                break;
            }
            int start = eol + 2;
            out.write(b, start, Math.min(n, b.length - start));
            i = start + n + 2;
        }
        return out.toByteArray();
    }

    private static int indexOf(byte[] b, int from) {
        for (int i = from; i + 1 < b.length; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n') {
                return i;
            }
        }
        return -1;
    }
}
