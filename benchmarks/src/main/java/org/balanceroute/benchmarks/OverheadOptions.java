package org.balanceroute.benchmarks;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The options of {@link ProxyOverhead}, {@link SideBySide} and {@link Soak}, parsed by picocli as
 * the command line's are. A tool changes a default by setting the field before {@link #parse}.
 * Values are checked as they are set (the setters), so a message names the option and its range;
 * an option given twice counts as last given, but for --also and --decode, which add up. The tools
 * print their own usage text.
 */
@Command(name = "proxy-overhead")
final class OverheadOptions {

    URI proxy;
    /** Other runtimes (a cluster's replicas) measured in (a) beside the proxy. */
    List<URI> also = new ArrayList<>();
    URI prefill;
    List<URI> decode = new ArrayList<>();
    URI sim;
    String adminAuth = basic("admin:admin");
    @Option(names = "--model")
    String model = "balanceroute-sim";
    int promptTokens = 128;
    int latencyMaxTokens = 16;
    int latencyRequests = 1000;
    int latencyWarmup = 200;
    int streamMaxTokens = 128;
    int[] concurrency = {1, 64, 512};
    double warmupSeconds = 5;
    double durationSeconds = 20;
    boolean latency = true;
    boolean throughput = true;
    long runtimePid;
    /** The simulated cluster's JVM (sim-cluster): its CPU per token on every row. */
    long enginePid;
    int clockTicks = 100;
    // side-by-side (SideBySide)
    /** vllm-ascend's PD proxy, a third path beside direct and ours. */
    URI peer;
    long peerPid;
    @Option(names = "--json")
    java.nio.file.Path json;
    int clientWarmup = 1000;
    int freshRequests = 1000;
    double warmLoadSeconds = 60;
    int warmLoadStreams = 64;
    /**
     * GET /admin/snapshot every 250 ms during the proxy's runs, for the pool columns; side by
     * side has none, and each call's credential check (an iterated hash) is CPU it would bill to the relay.
     */
    boolean poolSamples = true;
    @Option(names = "--replay-launcher")
    String replayLauncher;
    int replayRequests = 3000;
    double replayRate = 300;
    double replayTimeFactor = 0.08;
    int replayStreamInterval = 32;
    boolean replay = true;
    /** Short requests: concurrencies, tokens per answer. */
    int[] shortConcurrency = {64, 512};
    int shortMaxTokens = 8;
    boolean shortRequests = true;
    @Option(names = "--chart")
    java.nio.file.Path chart;

    @Option(names = {"-h", "--help"}, usageHelp = true)
    boolean help;

    @Option(names = "--proxy")
    void proxy(String v) {
        proxy = url("--proxy", v);
    }

    @Option(names = "--also")
    void also(String v) {
        also.addAll(urls("--also", v));
    }

    @Option(names = "--prefill")
    void prefill(String v) {
        prefill = url("--prefill", v);
    }

    @Option(names = "--decode")
    void decode(String v) {
        decode.addAll(urls("--decode", v));
    }

    @Option(names = "--sim")
    void sim(String v) {
        sim = url("--sim", v);
    }

    @Option(names = "--admin")
    void admin(String v) {
        if (!v.contains(":")) {
            throw new IllegalArgumentException("--admin must be USER:PASSWORD");
        }
        adminAuth = basic(v);
    }

    @Option(names = "--prompt-tokens")
    void promptTokens(String v) {
        promptTokens = integer("--prompt-tokens", v, 1, 100_000);
    }

    @Option(names = "--latency-max-tokens")
    void latencyMaxTokens(String v) {
        latencyMaxTokens = integer("--latency-max-tokens", v, 1, 100_000);
    }

    @Option(names = "--latency-requests")
    void latencyRequests(String v) {
        latencyRequests = integer("--latency-requests", v, 1, 10_000_000);
    }

    @Option(names = "--latency-warmup")
    void latencyWarmup(String v) {
        latencyWarmup = integer("--latency-warmup", v, 0, 10_000_000);
    }

    @Option(names = "--stream-max-tokens")
    void streamMaxTokens(String v) {
        streamMaxTokens = integer("--stream-max-tokens", v, 1, 100_000);
    }

    @Option(names = "--concurrency")
    void concurrency(String v) {
        concurrency = integers("--concurrency", v);
    }

    @Option(names = "--warmup-seconds")
    void warmupSeconds(String v) {
        warmupSeconds = seconds("--warmup-seconds", v, 0);
    }

    @Option(names = "--duration-seconds")
    void durationSeconds(String v) {
        durationSeconds = seconds("--duration-seconds", v, 0.1);
    }

    @Option(names = "--runtime-pid")
    void runtimePid(String v) {
        runtimePid = integer("--runtime-pid", v, 1, Integer.MAX_VALUE);
    }

    @Option(names = "--engine-pid")
    void enginePid(String v) {
        enginePid = integer("--engine-pid", v, 1, Integer.MAX_VALUE);
    }

    @Option(names = "--clock-ticks")
    void clockTicks(String v) {
        clockTicks = integer("--clock-ticks", v, 1, 1_000_000);
    }

    @Option(names = "--skip-latency")
    void skipLatency(boolean skip) {
        latency = false;
    }

    @Option(names = "--skip-throughput")
    void skipThroughput(boolean skip) {
        throughput = false;
    }

    @Option(names = "--skip-replay")
    void skipReplay(boolean skip) {
        replay = false;
    }

    @Option(names = "--skip-short")
    void skipShort(boolean skip) {
        shortRequests = false;
    }

    @Option(names = "--short-concurrency")
    void shortConcurrency(String v) {
        shortConcurrency = integers("--short-concurrency", v);
    }

    @Option(names = "--short-max-tokens")
    void shortMaxTokens(String v) {
        shortMaxTokens = integer("--short-max-tokens", v, 1, 100_000);
    }

    @Option(names = "--peer")
    void peer(String v) {
        peer = url("--peer", v);
    }

    @Option(names = "--peer-pid")
    void peerPid(String v) {
        peerPid = integer("--peer-pid", v, 1, Integer.MAX_VALUE);
    }

    @Option(names = "--client-warmup")
    void clientWarmup(String v) {
        clientWarmup = integer("--client-warmup", v, 0, 10_000_000);
    }

    @Option(names = "--fresh-requests")
    void freshRequests(String v) {
        freshRequests = integer("--fresh-requests", v, 1, 10_000_000);
    }

    @Option(names = "--warm-load-seconds")
    void warmLoadSeconds(String v) {
        warmLoadSeconds = seconds("--warm-load-seconds", v, 0);
    }

    @Option(names = "--warm-load-streams")
    void warmLoadStreams(String v) {
        warmLoadStreams = integer("--warm-load-streams", v, 1, 100_000);
    }

    @Option(names = "--replay-requests")
    void replayRequests(String v) {
        replayRequests = integer("--replay-requests", v, 1, 10_000_000);
    }

    @Option(names = "--replay-rate")
    void replayRate(String v) {
        replayRate = seconds("--replay-rate", v, 0.001);
    }

    @Option(names = "--replay-time-factor")
    void replayTimeFactor(String v) {
        replayTimeFactor = seconds("--replay-time-factor", v, 1e-6);
    }

    @Option(names = "--replay-stream-interval")
    void replayStreamInterval(String v) {
        replayStreamInterval = integer("--replay-stream-interval", v, 1, 4096);
    }

    /**
     * Parses {@code args} into {@code command} (these options, or a tool's own with these as its
     * {@code @Mixin}); the proxy, prefill and decode URLs are required.
     *
     * @return false for --help
     * @throws IllegalArgumentException what is wrong, naming the option
     */
    static boolean parse(String[] args, Object command, OverheadOptions o) {
        CommandLine cl = new CommandLine(command);
        cl.setOverwrittenOptionsAllowed(true); // given twice, the last one counts (a script's, then its caller's)
        try {
            cl.parseArgs(args);
        } catch (UnmatchedArgumentException e) {
            throw new IllegalArgumentException("unknown option '" + e.getUnmatched().get(0) + "'");
        } catch (MissingParameterException e) {
            throw new IllegalArgumentException(((OptionSpec) e.getMissing().get(0)).longestName() + " needs a value");
        } catch (ParameterException e) {
            throw new IllegalArgumentException(e.getCause() instanceof IllegalArgumentException i ? i.getMessage()
                    : e.getMessage());
        }
        if (cl.isUsageHelpRequested()) {
            return false;
        }
        if (o.proxy == null) {
            throw new IllegalArgumentException("--proxy URL is required");
        }
        if (o.prefill == null) {
            throw new IllegalArgumentException("--prefill URL is required");
        }
        if (o.decode.isEmpty()) {
            throw new IllegalArgumentException("--decode URL,URL,... is required");
        }
        return true;
    }

    private static List<URI> urls(String option, String v) {
        List<URI> urls = new ArrayList<>();
        for (String u : v.split(",")) {
            if (!u.isBlank()) {
                urls.add(url(option, u.strip()));
            }
        }
        return urls;
    }

    private static int[] integers(String option, String v) {
        String[] parts = v.split(",");
        int[] values = new int[parts.length];
        for (int k = 0; k < parts.length; k++) {
            values[k] = integer(option, parts[k].strip(), 1, 100_000);
        }
        return values;
    }

    private static String basic(String userPassword) {
        return "Basic " + Base64.getEncoder().encodeToString(userPassword.getBytes(StandardCharsets.UTF_8));
    }

    private static URI url(String option, String v) {
        try {
            URI u = new URI(v.strip());
            if (!"http".equalsIgnoreCase(u.getScheme()) || u.getHost() == null) {
                throw new IllegalArgumentException(option + " must be http://HOST:PORT, got '" + v + "'");
            }
            return URI.create("http://" + u.getRawAuthority());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException(option + " must be http://HOST:PORT, got '" + v + "'");
        }
    }

    private static int integer(String option, String v, int min, int max) {
        try {
            int n = Integer.parseInt(v.strip());
            if (n < min || n > max) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be an integer from " + min + " to " + max + ", got '" + v + "'");
        }
    }

    private static double seconds(String option, String v, double min) {
        try {
            double d = Double.parseDouble(v.strip());
            if (!(d >= min) || Double.isInfinite(d)) {
                throw new NumberFormatException();
            }
            return d;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be a number of seconds >= " + min + ", got '" + v + "'");
        }
    }
}
