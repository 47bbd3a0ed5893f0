package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.balanceroute.testkit.ListenQueue;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The door: a burst of connections far beyond the JDK's default listen backlog of 50, all opened
 * at once (non-blocking connects in one loop, before any answer), against a real runtime process
 * ({@code ./balanceroute run}) in front of a simulated cluster: every streaming request answered,
 * and no SYN dropped on a full accept queue (the kernel's TcpExt ListenOverflows and a late connect). The distribution sets
 * {@code org.apache.felix.http.jetty.acceptQueueSize=4096} (capped by {@code net.core.somaxconn});
 * the test checks the listener's backlog as the kernel has it ({@code ss}'s Send-Q).
 *
 * <p>With Jetty's default (50) on this 2-core machine the same burst overflowed the accept queue
 * 818-2267 times per run (TcpExt ListenOverflows): dropped SYNs, sent again after TCP's 1 s initial
 * retransmission timeout, p99 connect 1.1 s; with SYN cookies and real clients such a burst also
 * loses requests (a replay of 3,000 lost 45 to "header parser received no bytes"). With 4096: no
 * overflow, every connect within 150 ms.
 *
 * <p>Beyond the accept queue ({@code -Ddoor.burst=8192}, a measured run, not CI: too heavy for 2
 * cores in CI's budget): connections that do not fit wait for TCP's SYN retransmission (the kernel
 * drops their SYN; {@code tcp_abort_on_overflow} 0 means no reset), so the overflow check is skipped;
 * every request must be answered, or refused with a clear HTTP status (429 from {@code maxPoolDepth},
 * 503, with an OpenAI error body), and none reset or left unanswered. The test JVM and the runtime
 * it starts each hold one descriptor per connection: their {@code ulimit -n} must exceed the burst.
 */
public class DoorIT {

    /** Streaming requests, one connection each, every connection opened before any is answered. */
    static final int BURST = Integer.getInteger("door.burst", 1024);
    static final int MAX_TOKENS = 8;
    /** Prompt token ids: a body of tens of kilobytes, many TCP segments, as real prompts are. */
    static final int PROMPT_TOKENS = 4096;
    /** The accept queue the distribution asks for (conf/config.properties). */
    static final int ACCEPT_QUEUE = 4096;
    /** Whether the burst fits the accept queue (CI's) or goes beyond it (the measured run). */
    static final boolean BEYOND_QUEUE = BURST > ACCEPT_QUEUE;
    /**
     * A hang bound, not a figure: the loop ends as soon as every connection is answered (about 8 s
     * for 1,024 here); a request left unanswered is what fails. 25 s was too close: a tally run on
     * a machine at load average 22 had 325 of 1,024 answered by then and none failed otherwise.
     */
    static final long DEADLINE_SECONDS = Math.max(120, BURST / 40);

    private static SimCluster engines;
    private static RuntimeProcess runtime;

    @BeforeClass
    public static void start() throws Exception {
        engines = SimCluster.start(SimConfig.builder().prefill(1).decode(8).portBase(0).timeFactor(0.01).build());
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "balanceroute-door");
        runtime = new RuntimeProcess("door", work, RuntimeProcess.poolConfig(engines, 1, 8)).start(null).awaitUp();
    }

    @AfterClass
    public static void stop() throws Exception {
        if (runtime != null) {
            runtime.close();
        }
        if (engines != null) {
            engines.close();
        }
    }

    @Test
    public void aBurstOfConnectionsFarBeyondFiftyIsEveryOneAnswered() throws Exception {
        int somaxconn = ListenQueue.somaxconn();
        int expectedBacklog = somaxconn > 0 ? Math.min(ACCEPT_QUEUE, somaxconn) : -1;
        int backlog = ListenQueue.backlog(runtime.httpPort);
        System.out.printf("DoorIT: net.core.somaxconn %d, the runtime's listen backlog %s%n", somaxconn,
                backlog < 0 ? "unknown (no ss)" : Integer.toString(backlog));
        if (backlog >= 0 && expectedBacklog > 0) {
            assertEquals("the runtime's listen backlog (ss Send-Q): min(acceptQueueSize, somaxconn)", expectedBacklog, backlog);
        }
        long overflowsBefore = ListenQueue.overflows();

        byte[] request = request(runtime.httpPort);
        Selector selector = Selector.open();
        List<Conn> conns = new ArrayList<>(BURST);
        long t0 = System.nanoTime();
        // every connection first: the burst reaches the listen queue before the runtime answers any
        for (int i = 0; i < BURST; i++) {
            SocketChannel ch = SocketChannel.open();
            ch.configureBlocking(false);
            Conn c = new Conn(i, ByteBuffer.wrap(request));
            conns.add(c);
            try {
                if (ch.connect(new InetSocketAddress("127.0.0.1", runtime.httpPort))) {
                    ch.register(selector, SelectionKey.OP_WRITE, c);
                } else {
                    ch.register(selector, SelectionKey.OP_CONNECT, c);
                }
            } catch (IOException e) {
                c.fail("connect: " + e);
                ch.close();
            }
        }
        long opened = System.nanoTime();
        long deadline = t0 + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
        ByteBuffer read = ByteBuffer.allocate(64 * 1024);
        int open = (int) conns.stream().filter(c -> c.error == null).count();
        while (open > 0 && System.nanoTime() < deadline) {
            selector.select(200);
            for (SelectionKey key : selector.selectedKeys()) {
                Conn c = (Conn) key.attachment();
                SocketChannel ch = (SocketChannel) key.channel();
                try {
                    if (key.isConnectable()) {
                        ch.finishConnect();
                        c.connected = System.nanoTime();
                        key.interestOps(SelectionKey.OP_WRITE);
                    } else if (key.isWritable()) {
                        ch.write(c.out);
                        if (!c.out.hasRemaining()) {
                            key.interestOps(SelectionKey.OP_READ);
                        }
                    } else if (key.isReadable()) {
                        read.clear();
                        int n = ch.read(read);
                        if (n < 0) {
                            c.closed = true;
                            key.cancel();
                            ch.close();
                            open--;
                        } else {
                            if (c.firstByte == 0) {
                                c.firstByte = System.nanoTime();
                            }
                            c.in.write(read.array(), 0, n);
                        }
                    }
                } catch (IOException e) {
                    c.fail((key.isValid() && key.isConnectable() ? "connect: " : "") + e);
                    key.cancel();
                    ch.close();
                    open--;
                }
            }
            selector.selectedKeys().clear();
        }
        long end = System.nanoTime();
        for (SelectionKey key : selector.keys()) {
            key.channel().close();
        }
        selector.close();

        Map<String, Integer> failures = new TreeMap<>();
        Map<String, Integer> refusals = new TreeMap<>();
        int answered = 0;
        for (Conn c : conns) {
            String problem = c.error != null ? c.error : !c.closed ? "no complete answer within " + DEADLINE_SECONDS + " s"
                    : c.problem();
            String refusal = c.closed && c.error == null ? c.refusal() : null;
            if (problem == null) {
                answered++;
            } else if (BEYOND_QUEUE && refusal != null) {
                refusals.merge(refusal, 1, Integer::sum);
            } else {
                failures.merge(problem.length() > 160 ? problem.substring(0, 160) : problem, 1, Integer::sum);
            }
        }
        long overflowsAfter = ListenQueue.overflows();
        long overflows = overflowsBefore < 0 || overflowsAfter < 0 ? -1 : overflowsAfter - overflowsBefore;
        long[] connect = conns.stream().filter(c -> c.connected > 0).mapToLong(c -> c.connected - t0).sorted().toArray();
        long[] first = conns.stream().filter(c -> c.firstByte > 0).mapToLong(c -> c.firstByte - t0).sorted().toArray();
        long late = Arrays.stream(connect).filter(t -> t >= TimeUnit.SECONDS.toNanos(1)).count();
        System.out.printf("DoorIT: from the burst's start, connected p50 %.0f / p99 %.0f / max %.0f ms, first answer byte"
                + " p50 %.0f / p99 %.0f / max %.0f ms%n", pct(connect, 50), pct(connect, 99), pct(connect, 100),
                pct(first, 50), pct(first, 99), pct(first, 100));
        System.out.printf("DoorIT: %d connections opened in %.0f ms, %d/%d answered with %d tokens and [DONE] in %.1f s;"
                + " refused with a clear status %s; connects of 1 s or more (a SYN retransmission) %d; listen overflows"
                + " on this machine meanwhile: %s%n", BURST, (opened - t0) / 1e6, answered, BURST,
                MAX_TOKENS, (end - t0) / 1e9, refusals, late, overflows < 0 ? "unknown" : Long.toString(overflows));
        assertTrue("every request of the burst answered" + (BEYOND_QUEUE ? " or refused with a clear status" : "")
                + "; failures: " + failures + "\n" + runtime.logTail(), failures.isEmpty());
        if (!BEYOND_QUEUE) {
            // A SYN dropped on a full accept queue shows twice: in the kernel's count, TcpExt
            // ListenOverflows, and as a connect that completed 1 s (TCP's initial retransmission
            // timeout) or more after it was issued, so after the burst began. Neither alone is the
            // runtime's: the count is the whole machine's (a tally run: 8 overflows of another listener
            // while all 1,024 connects here completed within 239 ms), and a connect's time is when this
            // thread saw it complete, which a thread starved of CPU sees late (another: 1,024 "slow"
            // connects, 0 overflows). A connect seen within 1 s of the burst's start was not
            // retransmitted; so the burst lost a SYN only if the kernel dropped one and some connect
            // here was seen at 1 s or later.
            assertTrue("TcpExt ListenOverflows readable (/proc/net/netstat)", overflows >= 0);
            assertFalse("SYNs dropped on a full accept queue: TcpExt ListenOverflows +" + overflows + " during the burst and "
                    + late + " connects seen 1 s or more after the burst began", overflows > 0 && late > 0);
        }
        RuntimeProcess.await("the router's snapshot back to zero load", java.time.Duration.ofSeconds(10), () -> {
            var s = runtime.snapshot();
            return s != null && s.path("totals").path("running").asLong() == 0 && s.path("poolDepth").asLong() == 0;
        });
    }

    static double pct(long[] sorted, double p) {
        return sorted.length == 0 ? Double.NaN
                : sorted[Math.max(0, Math.min(sorted.length - 1, (int) Math.ceil(p / 100 * sorted.length) - 1))] / 1e6;
    }

    /** One client connection: the request to write, the answer read until the server closes. */
    static final class Conn {
        final int index;
        final ByteBuffer out;
        final ByteArrayOutputStream in = new ByteArrayOutputStream();
        String error;
        boolean closed;
        long connected;
        long firstByte;

        Conn(int index, ByteBuffer out) {
            this.index = index;
            this.out = out;
        }

        void fail(String e) {
            if (error == null) {
                error = e;
            }
        }

        /** "429" or "503" when the answer is that status with an OpenAI error body (a clear refusal), else null. */
        String refusal() {
            String raw = in.toString(StandardCharsets.ISO_8859_1);
            boolean status = raw.startsWith("HTTP/1.1 429") || raw.startsWith("HTTP/1.1 503");
            int headerEnd = raw.indexOf("\r\n\r\n");
            return status && headerEnd > 0 && raw.indexOf("\"error\"", headerEnd) > 0 ? raw.substring(9, 12) : null;
        }

        /** Null when the answer is a 200 event stream ending in the usage of MAX_TOKENS tokens and [DONE]. */
        String problem() {
            String raw = in.toString(StandardCharsets.ISO_8859_1);
            if (raw.isEmpty()) {
                return "closed without an answer";
            }
            int headerEnd = raw.indexOf("\r\n\r\n");
            if (!raw.startsWith("HTTP/1.1 200") || headerEnd < 0) {
                return "answer: " + raw.lines().findFirst().orElse("");
            }
            String headers = raw.substring(0, headerEnd).toLowerCase(java.util.Locale.ROOT);
            String body = raw.substring(headerEnd + 4);
            if (headers.contains("transfer-encoding: chunked")) {
                body = dechunk(body);
                if (body == null) {
                    return "a broken chunked body";
                }
            }
            if (body.contains("\"error\"")) {
                return "in-band error: " + body.lines().filter(l -> l.contains("\"error\"")).findFirst().orElse("");
            }
            if (!body.contains("data: [DONE]")) {
                return "the stream ended without data: [DONE]";
            }
            if (!java.util.regex.Pattern.compile("\"completion_tokens\"\\s*:\\s*" + MAX_TOKENS + "\\b").matcher(body).find()) {
                return "no usage of " + MAX_TOKENS + " completion tokens";
            }
            return null;
        }

        private static String dechunk(String body) {
            StringBuilder out = new StringBuilder();
            int i = 0;
            while (true) {
                int eol = body.indexOf("\r\n", i);
                if (eol < 0) {
                    return null;
                }
                int size;
                try {
                    size = Integer.parseInt(body.substring(i, eol).split(";")[0].trim(), 16);
                } catch (NumberFormatException e) {
                    return null;
                }
                if (size == 0) {
                    return out.toString();
                }
                int start = eol + 2;
                if (start + size > body.length()) {
                    return null;
                }
                out.append(body, start, start + size);
                i = start + size + 2;
            }
        }
    }

    /** A streaming completion with usage, the connection closed after the answer. */
    static byte[] request(int port) {
        String prompt = IntStream.rangeClosed(1, PROMPT_TOKENS).mapToObj(i -> Integer.toString(i % 1000 + 1)).collect(Collectors.joining(","));
        String body = "{\"model\": \"balanceroute-sim\", \"prompt\": [" + prompt + "], \"max_tokens\": " + MAX_TOKENS
                + ", \"ignore_eos\": true, \"stream\": true, \"stream_options\": {\"include_usage\": true}}";
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        String head = "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n"
                + "Accept: text/event-stream\r\nConnection: close\r\nContent-Length: " + b.length + "\r\n\r\n";
        byte[] h = head.getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[h.length + b.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(b, 0, all, h.length, b.length);
        return all;
    }
}
