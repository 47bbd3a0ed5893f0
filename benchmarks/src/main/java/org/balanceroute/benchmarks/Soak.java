package org.balanceroute.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.balanceroute.benchmarks.ProxyOverhead.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The soak (issue 12): {@code --streams} closed-loop streams (512) through the proxy for
 * {@code --minutes} (10), each sending a streamed completion of {@code --stream-max-tokens}
 * tokens back to back; beside them one probe at a time, alternating the proxy path and the direct
 * path (the client's own prefill and decode hops, as {@link ProxyOverhead} does), whose
 * percentiles per minute give the latency the proxy adds under that load. The runtime JVM is
 * sampled idle before the load, at the start (after the warm-up), at the end of every minute (all
 * under the load) and once more idle after it: the bytes of live objects after a full GC (the total of
 * {@code jcmd GC.class_histogram}, written to {@code --histogram-dir} when given, so that what grew
 * can be named), the committed heap, open file descriptors and threads ({@code /proc}). Samples under the load
 * include what the streams in flight hold at that moment; the idle one after the load, what stays.
 * Prints one table; exit 0 whatever it measured.
 */
public final class Soak {

    private final ProxyOverhead tool;
    private final int streams;
    private final double minutes;
    private final double warmupSeconds;
    private final int maxTokens;
    private final long pid;
    private final java.nio.file.Path histogramDir;

    Soak(ProxyOverhead tool, int streams, double minutes, double warmupSeconds, int maxTokens, long pid,
            java.nio.file.Path histogramDir) {
        this.histogramDir = histogramDir;
        this.tool = tool;
        this.streams = streams;
        this.minutes = minutes;
        this.warmupSeconds = warmupSeconds;
        this.maxTokens = maxTokens;
        this.pid = pid;
    }

    public static void main(String[] args) throws Exception {
        if (System.getProperty("jdk.httpclient.keepalive.timeout") == null) {
            System.setProperty("jdk.httpclient.keepalive.timeout", "4");
        }
        Options options = new Options();
        OverheadOptions o = options.overhead;
        o.warmupSeconds = 30; // a soak's warm-up: the default of its own --warmup-seconds
        boolean run;
        try {
            run = OverheadOptions.parse(args, options, o) && options.streams >= 1 && options.minutes > 0;
        } catch (IllegalArgumentException e) {
            System.err.println("soak: " + e.getMessage());
            run = false;
        }
        if (!run) {
            System.err.println("Usage: Soak [--streams N] [--minutes M] [--warmup-seconds S] [--histogram-dir DIR] ProxyOverhead options"
                    + " (--proxy, --prefill, --decode, --sim, --runtime-pid, --stream-max-tokens, --latency-max-tokens)");
            System.exit(2);
        }
        new Soak(new ProxyOverhead(o), options.streams, options.minutes, o.warmupSeconds, o.streamMaxTokens, o.runtimePid,
                options.histograms).run();
        System.exit(0);
    }

    /** Soak's own options, then ProxyOverhead's; its --warmup-seconds is theirs, 30 s by default. */
    @Command(name = "soak")
    static final class Options {
        @Option(names = "--streams")
        int streams = 512;

        @Option(names = "--minutes")
        double minutes = 10;

        @Option(names = "--histogram-dir")
        java.nio.file.Path histograms;

        @Mixin
        OverheadOptions overhead = new OverheadOptions();
    }

    /** What one minute saw. */
    static final class Minute {
        final LongAdder completed = new LongAdder();
        final LongAdder tokens = new LongAdder();
        final Map<String, Integer> errors = new ConcurrentHashMap<>();
        final List<Long> proxyE2e = new ArrayList<>();
        final List<Long> directE2e = new ArrayList<>();
        final List<Long> proxyTtft = new ArrayList<>();
        final List<Long> directTtft = new ArrayList<>();
    }

    void run() throws Exception {
        int total = (int) Math.ceil(minutes);
        Minute[] perMinute = new Minute[total];
        for (int m = 0; m < total; m++) {
            perMinute[m] = new Minute();
        }
        AtomicBoolean loading = new AtomicBoolean(true);
        AtomicLong measureFrom = new AtomicLong(Long.MAX_VALUE);
        AtomicLong requests = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        CountDownLatch ended = new CountDownLatch(streams);
        Sample before = sample("idle before");
        for (int s = 0; s < streams; s++) {
            loop(s, loading, measureFrom, perMinute, requests, failures, ended);
        }
        System.err.printf(Locale.ROOT, "soak: %d streams started; %.0f s warm-up%n", streams, warmupSeconds);
        Thread.sleep((long) (warmupSeconds * 1000));
        List<Sample> samples = new ArrayList<>();
        samples.add(before);
        samples.add(sample("start"));
        long t0 = System.nanoTime();
        measureFrom.set(t0);
        requests.set(0);
        failures.set(0);
        long end = t0 + (long) (minutes * 60e9);
        int probes = 0;
        while (System.nanoTime() < end) {
            // one probe at a time, the two paths alternating; a pause so the probes stay a trickle
            Path path = probes++ % 2 == 0 ? Path.PROXY : Path.DIRECT;
            Outcome o = tool.send(path, probes, tool.o.latencyMaxTokens).join();
            int m = minuteOf(o.endNanos(), t0, total);
            if (m >= 0 && o.error() == null && o.firstTokenNanos() > 0) {
                Minute bucket = perMinute[m];
                synchronized (bucket) {
                    (path == Path.PROXY ? bucket.proxyE2e : bucket.directE2e).add(o.endNanos() - o.startNanos());
                    (path == Path.PROXY ? bucket.proxyTtft : bucket.directTtft).add(o.firstTokenNanos() - o.startNanos());
                }
            }
            Thread.sleep(100);
            long minute = (System.nanoTime() - t0) / 60_000_000_000L;
            if (minute + 2 > samples.size() && minute < total) { // a minute ended: sample it under the load
                samples.add(sample("minute " + minute));
            }
            if (probes % 600 == 0) {
                System.err.printf(Locale.ROOT, "soak: minute %d, %d requests, %d failed%n", minute, requests.get(),
                        failures.get());
            }
        }
        samples.add(sample("end")); // under the same load as the start sample
        loading.set(false);
        ended.await(5, TimeUnit.MINUTES);
        Thread.sleep(2000); // the router releases the last requests
        samples.add(sample("idle after"));
        print(samples, perMinute, requests.get(), failures.get());
    }

    private void loop(int s, AtomicBoolean loading, AtomicLong measureFrom, Minute[] perMinute, AtomicLong requests,
            AtomicLong failures, CountDownLatch ended) {
        if (!loading.get()) {
            ended.countDown();
            return;
        }
        tool.send(Path.PROXY, s, maxTokens).whenComplete((o, failure) -> {
            long from = measureFrom.get();
            if (o != null && o.startNanos() >= from) {
                requests.incrementAndGet();
                int m = minuteOf(o.endNanos(), from, perMinute.length);
                String error = failure != null ? failure.toString() : o.error() != null ? o.error()
                        : o.tokens() != maxTokens ? o.tokens() + " tokens, expected " + maxTokens : null;
                if (error != null) {
                    failures.incrementAndGet();
                    if (m >= 0) {
                        perMinute[m].errors.merge(error.length() > 120 ? error.substring(0, 120) : error, 1, Integer::sum);
                    }
                } else if (m >= 0) {
                    perMinute[m].completed.increment();
                    perMinute[m].tokens.add(o.tokens());
                }
            }
            boolean failed = failure != null || o.error() != null;
            if (failed) {
                // a failing stream tries again after a pause, not in a tight loop
                java.util.concurrent.CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS)
                        .execute(() -> loop(s, loading, measureFrom, perMinute, requests, failures, ended));
            } else {
                loop(s, loading, measureFrom, perMinute, requests, failures, ended);
            }
        });
    }

    private static int minuteOf(long nanos, long t0, int total) {
        if (nanos < t0) {
            return -1;
        }
        return (int) Math.min(total - 1, (nanos - t0) / 60_000_000_000L);
    }

    record Sample(String label, long heapUsedKb, long heapCommittedKb, int fds, int threads, String when) {
    }

    Sample sample(String label) {
        if (pid <= 0) {
            return new Sample(label, -1, -1, -1, -1, "no --runtime-pid");
        }
        long used = -1;
        long committed = -1;
        try {
            // One command that collects fully and then counts what is live: heap_info after GC.run would
            // also count what the 512 streams allocated between the two commands (tens of MB, measured)
            String histogram = run("jcmd", Long.toString(pid), "GC.class_histogram");
            java.util.regex.Matcher total = java.util.regex.Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)\\s*$")
                    .matcher(histogram);
            if (total.find()) {
                used = Long.parseLong(total.group(1)) / 1024;
            }
            if (histogramDir != null) {
                java.nio.file.Files.createDirectories(histogramDir);
                java.nio.file.Files.writeString(histogramDir.resolve("histogram-" + label.replace(' ', '-') + ".txt"),
                        histogram);
            }
            // " garbage-first heap   total 262144K, used 51234K [..." (or another collector's equivalent)
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("total (\\d+)K, used (\\d+)K")
                    .matcher(run("jcmd", Long.toString(pid), "GC.heap_info"));
            if (m.find()) {
                committed = Long.parseLong(m.group(1));
            }
        } catch (IOException | InterruptedException e) {
            System.err.println("soak: jcmd failed: " + e);
        }
        int fds = -1;
        int threads = -1;
        try (var list = java.nio.file.Files.list(java.nio.file.Path.of("/proc/" + pid + "/fd"))) {
            fds = (int) list.count();
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("Threads:")) {
                    threads = Integer.parseInt(line.substring(8).strip());
                }
            }
        } catch (IOException e) {
            System.err.println("soak: /proc/" + pid + ": " + e);
        }
        return new Sample(label, used, committed, fds, threads, ZonedDateTime.now().format(DateTimeFormatter.ISO_LOCAL_TIME));
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(60, TimeUnit.SECONDS);
        return out;
    }

    private void print(List<Sample> samples, Minute[] perMinute, long requests, long failures) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%nSoak, %s: %d streams through the proxy for %.1f min, %d tokens per request;"
                + " probes of %d tokens, proxy and direct alternating%n",
                ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME), streams, minutes, maxTokens,
                tool.o.latencyMaxTokens));
        sb.append(String.format(Locale.ROOT, "requests %d, failed %d%n", requests, failures));
        sb.append(String.format(Locale.ROOT, "%-6s %10s %10s %8s %12s %12s %12s %12s %12s %s%n", "minute", "requests",
                "tok/s", "failed", "proxy p99", "direct p99", "added p99", "added p50", "TTFT add p99", "probes"));
        for (int m = 0; m < perMinute.length; m++) {
            Minute x = perMinute[m];
            long[] pe = sorted(x.proxyE2e);
            long[] de = sorted(x.directE2e);
            long[] pt = sorted(x.proxyTtft);
            long[] dt = sorted(x.directTtft);
            int failed = x.errors.values().stream().mapToInt(Integer::intValue).sum();
            sb.append(String.format(Locale.ROOT, "%-6d %10d %10.0f %8d %12.1f %12.1f %+12.1f %+12.1f %+12.1f %d+%d%n", m + 1,
                    x.completed.sum(), x.tokens.sum() / 60.0, failed, Nanos.ms(Nanos.pct(pe, 99)),
                    Nanos.ms(Nanos.pct(de, 99)),
                    Nanos.ms(Nanos.pct(pe, 99) - Nanos.pct(de, 99)),
                    Nanos.ms(Nanos.pct(pe, 50) - Nanos.pct(de, 50)),
                    Nanos.ms(Nanos.pct(pt, 99) - Nanos.pct(dt, 99)), pe.length, de.length));
            if (!x.errors.isEmpty()) {
                sb.append("       errors: ").append(new TreeMap<>(x.errors)).append('\n');
            }
        }
        sb.append(String.format(Locale.ROOT, "%-12s %-16s %14s %14s %8s %8s%n", "runtime JVM", "at", "live heap KB",
                "committed KB", "fds", "threads"));
        for (Sample s : samples) {
            sb.append(String.format(Locale.ROOT, "%-12s %-16s %14d %14d %8d %8d%n", s.label(), s.when(), s.heapUsedKb(),
                    s.heapCommittedKb(), s.fds(), s.threads()));
        }
        Sample start = samples.get(1);
        Sample finish = samples.get(samples.size() - 2);
        if (start.heapUsedKb() > 0 && finish.heapUsedKb() > 0) {
            sb.append(String.format(Locale.ROOT, "heap after full GC, end vs start (under the load): %+.1f%%%n",
                    100.0 * (finish.heapUsedKb() - start.heapUsedKb()) / start.heapUsedKb()));
        }
        sb.append("(added: proxy probe percentile minus direct probe percentile in that minute, ms; heap used: the"
                + " live objects after the full GC of jcmd GC.class_histogram; start after the warm-up, minute N at its end and end at the last minute, all under the"
                + " load; idle before the first stream (pools and caches still empty) and after the last)\n");
        System.out.print(sb);
        System.out.flush();
    }

    private static long[] sorted(List<Long> values) {
        synchronized (values) {
            long[] a = values.stream().mapToLong(Long::longValue).toArray();
            Arrays.sort(a);
            return a;
        }
    }
}
