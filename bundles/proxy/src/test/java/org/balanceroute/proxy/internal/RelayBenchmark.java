package org.balanceroute.proxy.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.balanceroute.connector.vllm.SseScanner;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The relay's per-event cost on real engine streams: the decode answers the simulated cluster
 * sent (captured into {@code relay/*.sse}, see benchmarks/README.md), each relayed whole per
 * invocation through the classes the runtime runs: the connector's {@link SseScanner} over the
 * bytes as read, then per event what {@link Hop#onEvent(ByteBuffer, int, int)} does on its fast
 * path ({@link ChunkScan}, {@link TokenCounter}, the text kept for a continuation in
 * {@link GeneratedText}, the event framed into a {@link ClientStream}), and per read what
 * {@link Hop#onEventsRead()} does (one write and one flush, to an output that takes everything).
 * The router's report and the socket are not in it.
 *
 * <p>{@code read}: {@code event}, one event per read of the upstream (a light load: the engine
 * flushes each chunk and the proxy reads it alone); {@code 4k}, reads of 4 KiB cut anywhere (a
 * loaded proxy reads what piled up, events split across reads). Time is per invocation (one
 * whole stream): divide by the events printed at setup for the cost per event; {@code -prof gc}'s
 * {@code gc.alloc.rate.norm} divided by the stream's bytes is the allocation per relayed byte.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class RelayBenchmark {

    /** The captured answers: 128-token completions and chat, with usage on every chunk or only at the end. */
    @Param({"completions-continuous-usage", "completions-usage-at-end", "chat-continuous-usage", "chat-usage-at-end"})
    public String stream;

    @Param({"event", "4k"})
    public String read;

    private ByteBuffer[] reads;
    private final DiscardOutput out = new DiscardOutput();
    private Relay relay;

    @Setup(Level.Trial)
    public void load() throws IOException {
        byte[] body;
        try (InputStream in = RelayBenchmark.class.getResourceAsStream("/relay/" + stream + ".sse")) {
            if (in == null) {
                throw new IOException("no captured stream relay/" + stream + ".sse");
            }
            body = in.readAllBytes();
        }
        int events = 0;
        for (int i = 0; i + 1 < body.length; i++) {
            if (body[i] == '\n' && body[i + 1] == '\n') {
                events++;
            }
        }
        if ("event".equals(read)) {
            reads = new ByteBuffer[events];
            int from = 0;
            int k = 0;
            for (int i = 0; i + 1 < body.length; i++) {
                if (body[i] == '\n' && body[i + 1] == '\n') {
                    reads[k++] = ByteBuffer.wrap(body, from, i + 2 - from).slice();
                    from = i + 2;
                }
            }
        } else {
            int size = 4096;
            reads = new ByteBuffer[(body.length + size - 1) / size];
            for (int k = 0; k < reads.length; k++) {
                reads[k] = ByteBuffer.wrap(body, k * size, Math.min(size, body.length - k * size)).slice();
            }
        }
        System.out.printf("%n%s: %d bytes, %d events, %d reads%n", stream, body.length, events, reads.length);
    }

    @Setup(Level.Invocation)
    public void fresh() {
        for (ByteBuffer r : reads) {
            r.clear();
        }
        relay = new Relay(out);
    }

    @Benchmark
    public long relayOneStream(Blackhole bh) {
        Relay r = relay;
        for (ByteBuffer b : reads) {
            r.scanner.feed(b);
            r.onEventsRead();
        }
        bh.consume(r.counter.total());
        return out.bytes;
    }

    /** One hop's relay state, as {@link Hop} holds it. */
    static final class Relay {
        final ChunkScan scan = new ChunkScan();
        final TokenCounter counter = new TokenCounter();
        final GeneratedText generated = new GeneratedText();
        final ClientStream client = new ClientStream(4096, () -> { });
        final SseScanner scanner = new SseScanner(this::onEvent);
        int unreported;

        Relay(ClientOutput out) {
            client.start(out);
        }

        void onEvent(ByteBuffer buffer, int offset, int length) {
            byte[] a = buffer.array();
            int from = buffer.arrayOffset() + offset;
            if (scan.scan(a, from, from + length) && scan.object && !scan.error) {
                unreported += counter.onScan(scan);
                if (scan.textFrom >= 0) {
                    generated.appendRaw(a, scan.textFrom, scan.textTo);
                }
            }
            client.event(a, from, length);
        }

        void onEventsRead() {
            unreported = 0; // the router's report: one call per read, not measured here
            client.flush();
        }
    }
}
