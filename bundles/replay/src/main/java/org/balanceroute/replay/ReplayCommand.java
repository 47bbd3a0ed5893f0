package org.balanceroute.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.balanceroute.trace.Trace;
import org.balanceroute.trace.TraceFormatException;
import org.balanceroute.trace.TraceLoader;
import org.balanceroute.trace.TraceOptions;
import org.balanceroute.trace.TraceRequest;
import org.balanceroute.trace.WorkloadGenerator;

/** {@code ./balanceroute replay}: the command line of the {@link Replayer}. */
public final class ReplayCommand {

    static final String USAGE = """
            Usage: ./balanceroute replay --url URL [--url URL2 ...] (--trace FILE | --generate N) [options]

            Sends each request at its arrival time to URL/v1/completions (any OpenAI-compatible
            endpoint; with several --url, request i goes to the (i mod n)-th, round-robin, as a load
            balancer in front of proxy replicas would) as a streaming completion: a token-id prompt of the request's input length
            (ids cycling 1..1000), max_tokens = its output length, ignore_eos, stream_options
            include_usage. Measures TTFT, TPOT and output tokens per request; prints a summary.

            Options:
              --url URL          the endpoint, e.g. http://127.0.0.1:8000 (required; repeat it, or
                                 give a comma-separated list, to spread the replay over several)
              --trace FILE       Azure CSV, Mooncake JSON lines or plain CSV (see simulate)
              --generate N       N requests of the built-in seeded Mooncake-like workload
              --rate R           --generate: arrivals per second before --rate-scale (default 3.4)
              --limit N          --trace: keep the first N requests
              --rate-scale X     divide every arrival time by X (default 1)
              --concurrency C    most requests in flight (default 512)
              --seed S           --generate: the seed (default 1)
              --model NAME       the model field (default: the first of URL/v1/models)
              --continuous-usage also ask for stream_options.continuous_usage_stats (cumulative
                                 usage on every chunk, as the demo does; a router in between
                                 then counts multi-token chunks right)
              --json             print one JSON object instead of the summary
            Exit status: 0 when every request completed, 1 when any failed or the input is bad,
            2 for a bad option.
            """;

    private ReplayCommand() {
    }

    public static void main(String[] args) throws Exception {
        Replayer.configureJdkClient();
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        List<String> urls = new java.util.ArrayList<>();
        String trace = null;
        int generate = -1;
        double rate = WorkloadGenerator.MOONCAKE_RATE;
        int limit = 0;
        double rateScale = 1;
        int concurrency = 512;
        long seed = 1;
        String model = null;
        boolean json = false;
        boolean continuousUsage = false;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--url" -> {
                        for (String u : value(args, ++i, a).split(",")) {
                            if (!u.isBlank()) {
                                urls.add(u.strip());
                            }
                        }
                    }
                    case "--trace" -> trace = value(args, ++i, a);
                    case "--generate" -> generate = intValue(args, ++i, a, 1);
                    case "--rate" -> rate = doubleValue(args, ++i, a);
                    case "--limit" -> limit = intValue(args, ++i, a, 1);
                    case "--rate-scale" -> rateScale = doubleValue(args, ++i, a);
                    case "--concurrency" -> concurrency = intValue(args, ++i, a, 1);
                    case "--seed" -> seed = Long.parseLong(value(args, ++i, a));
                    case "--model" -> model = value(args, ++i, a);
                    case "--json" -> json = true;
                    case "--continuous-usage" -> continuousUsage = true;
                    case "-h", "--help" -> {
                        out.print(USAGE);
                        return 0;
                    }
                    default -> throw new IllegalArgumentException("unknown option '" + a + "'");
                }
            }
            if (urls.isEmpty()) {
                throw new IllegalArgumentException("--url is required");
            }
            if ((trace == null) == (generate < 0)) {
                throw new IllegalArgumentException("give exactly one of --trace FILE and --generate N");
            }
            urls.forEach(Replayer::completionsUri);
        } catch (IllegalArgumentException e) {
            err.println("balanceroute replay: " + e.getMessage());
            err.print(USAGE);
            return 2;
        }
        List<TraceRequest> requests;
        if (trace != null) {
            try {
                Trace t = TraceLoader.load(Path.of(trace), new TraceOptions(limit, -1, 1, 4));
                requests = t.requests();
                err.println("balanceroute replay: " + t);
            } catch (TraceFormatException e) {
                err.println("balanceroute replay: " + e.getMessage());
                return 1;
            }
        } else {
            Trace t = new WorkloadGenerator(seed, rate).generate(generate);
            requests = t.requests();
            err.println("balanceroute replay: " + t);
        }
        if (model == null) {
            model = firstModel(urls.get(0), err);
        }
        Replayer replayer = new Replayer(urls, model, rateScale, concurrency, err).continuousUsage(continuousUsage);
        ReplayResult result = replayer.run(requests);
        if (json) {
            out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(result.toMap()));
        } else {
            out.print(result.table());
        }
        return result.failed() == 0 ? 0 : 1;
    }

    /** The first model URL/v1/models lists, or null (no model field) when it cannot be read. */
    static String firstModel(String url, PrintStream err) {
        URI models = URI.create(Replayer.completionsUri(url).toString().replaceFirst("/completions$", "/models"));
        try {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5)).build();
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(models).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                JsonNode id = new ObjectMapper().readTree(r.body()).path("data").path(0).path("id");
                if (id.isTextual()) {
                    return id.asText();
                }
            }
            err.println("balanceroute replay: " + models + " answered HTTP " + r.statusCode()
                    + "; sending no model field (use --model NAME)");
        } catch (java.net.ConnectException e) {
            err.println("balanceroute replay: connection refused: nothing listens at " + models.getAuthority());
        } catch (Exception e) {
            err.println("balanceroute replay: cannot read " + models + " (" + e + "); sending no model field");
        }
        return null;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int intValue(String[] args, int i, String option, int min) {
        String v = value(args, i, option);
        try {
            int n = Integer.parseInt(v);
            if (n < min) {
                throw new IllegalArgumentException(option + " must be >= " + min + ", got " + v);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be an integer, got '" + v + "'");
        }
    }

    private static double doubleValue(String[] args, int i, String option) {
        String v = value(args, i, option);
        try {
            double x = Double.parseDouble(v);
            if (!(x > 0) || Double.isInfinite(x)) {
                throw new IllegalArgumentException(option + " must be > 0, got " + v);
            }
            return x;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be a number, got '" + v + "'");
        }
    }
}
