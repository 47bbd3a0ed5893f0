package org.balanceroute.cli;

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
import java.util.ArrayList;
import java.util.List;
import org.balanceroute.replay.ReplayResult;
import org.balanceroute.replay.Replayer;
import org.balanceroute.trace.Trace;
import org.balanceroute.trace.TraceFormatException;
import org.balanceroute.trace.TraceLoader;
import org.balanceroute.trace.TraceOptions;
import org.balanceroute.trace.TraceRequest;
import org.balanceroute.trace.WorkloadGenerator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./balanceroute replay}: the command line of the {@link Replayer}. */
@Command(name = "replay", sortOptions = false,
        customSynopsis = "./balanceroute replay --url URL [--url URL2 ...] (--trace FILE | --generate N) [options]",
        description = {"", "Sends each request at its arrival time to URL/v1/completions (any OpenAI-compatible"
                + " endpoint; with several --url, request i goes to the (i mod n)-th, round-robin, as a load"
                + " balancer in front of proxy replicas would) as a streaming completion: a token-id prompt of the"
                + " request's input length (ids cycling 1..1000), max_tokens = its output length, ignore_eos,"
                + " stream_options include_usage. Measures TTFT, TPOT and output tokens per request; prints a"
                + " summary.", ""},
        footer = {"", "Exit status: 0 when every request completed, 1 when any failed or the input is bad, 2 for a"
                + " bad option."})
public final class ReplayCommand extends CliCommand {

    @Option(names = "--url", paramLabel = "URL", description = "the endpoint, e.g. http://127.0.0.1:8000"
            + " (required; repeat it, or give a comma-separated list, to spread the replay over several)")
    List<String> urlOptions = new ArrayList<>();

    @Option(names = "--trace", paramLabel = "FILE", description = "Azure CSV, Mooncake JSON lines or plain CSV"
            + " (see simulate)")
    String trace;

    @Option(names = "--generate", paramLabel = "N", converter = Values.Int.class,
            description = "N requests of the built-in seeded Mooncake-like workload")
    int generate = -1;

    @Option(names = "--rate", paramLabel = "R", converter = Values.Real.class,
            description = "--generate: arrivals per second before --rate-scale; default: ${DEFAULT-VALUE}")
    double rate = WorkloadGenerator.MOONCAKE_RATE;

    @Option(names = "--limit", paramLabel = "N", converter = Values.Int.class,
            description = "--trace: keep the first N requests")
    Integer limit;

    @Option(names = "--rate-scale", paramLabel = "X", converter = Values.Real.class,
            description = "divide every arrival time by X; default: ${DEFAULT-VALUE}")
    double rateScale = 1;

    @Option(names = "--concurrency", paramLabel = "C", converter = Values.Int.class,
            description = "most requests in flight; default: ${DEFAULT-VALUE}")
    int concurrency = 512;

    @Option(names = "--seed", paramLabel = "S", converter = Values.Long.class,
            description = "--generate: the seed; default: ${DEFAULT-VALUE}")
    long seed = 1;

    @Option(names = "--model", paramLabel = "NAME", description = "the model field; default: the first of"
            + " URL/v1/models")
    String model;

    @Option(names = "--continuous-usage", description = "also ask for stream_options.continuous_usage_stats"
            + " (cumulative usage on every chunk, as the demo does; a router in between then counts multi-token"
            + " chunks right)")
    boolean continuousUsage;

    @Option(names = "--json", description = "print one JSON object instead of the summary")
    boolean json;

    @Override
    Hint usageHint() {
        return Hint.USAGE;
    }

    /** Runs the command as {@code ./balanceroute replay ARGS} does. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        List<String> all = new ArrayList<>(List.of("replay"));
        all.addAll(List.of(args));
        return Main.run(all, out, err);
    }

    @Override
    int run() throws Exception {
        List<String> urls = new ArrayList<>();
        for (String option : urlOptions) {
            for (String u : option.split(",")) {
                if (!u.isBlank()) {
                    urls.add(u.strip());
                }
            }
        }
        atLeastOne("--generate", generate);
        positive("--rate", rate);
        atLeastOne("--limit", limit == null ? 1 : limit);
        positive("--rate-scale", rateScale);
        atLeastOne("--concurrency", concurrency);
        if (urls.isEmpty()) {
            throw new UsageException("--url is required");
        }
        if ((trace == null) == (generate < 0)) {
            throw new UsageException("give exactly one of --trace FILE and --generate N");
        }
        try {
            urls.forEach(Replayer::completionsUri);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        List<TraceRequest> requests;
        if (trace != null) {
            try {
                Trace t = TraceLoader.load(Path.of(trace), new TraceOptions(limit == null ? 0 : limit, -1, 1, 4));
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

    private void atLeastOne(String option, int value) throws UsageException {
        if (value < 1 && given(option) != null) {
            throw new UsageException(option + " must be >= 1, got " + given(option));
        }
    }

    private void positive(String option, double value) throws UsageException {
        if (!(value > 0)) {
            throw new UsageException(option + " must be > 0, got " + given(option));
        }
    }
}
