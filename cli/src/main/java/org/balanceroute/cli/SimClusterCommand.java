package org.balanceroute.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./balanceroute sim-cluster}: a simulated vLLM DP cluster on localhost, serving until
 * stopped. Exit status 2 on a usage error (a bad value or fault, named), 1 on a bind failure.
 */
@Command(name = "sim-cluster", sortOptions = false, customSynopsis = "./balanceroute sim-cluster [options]",
        description = {"", "Starts a simulated vLLM DP cluster on localhost and serves until stopped (Ctrl-C):"
                + " prefill server i on port N+i, decode rank g on N+100+g (one endpoint per DP rank), the"
                + " all-ranks endpoint (header X-data-parallel-rank) on N+99.", ""})
final class SimClusterCommand extends CliCommand {

    /** The defaults are SimConfig's. */
    private static final SimConfig DEFAULTS = SimConfig.builder().build();

    @Option(names = "--prefill", paramLabel = "P", converter = Values.Int.class,
            description = "prefill servers, 0..99; default: ${DEFAULT-VALUE}")
    int prefill = DEFAULTS.prefill();

    @Option(names = "--decode", paramLabel = "G", converter = Values.Int.class,
            description = "decode DP ranks, 1..1024; default: ${DEFAULT-VALUE}")
    int decode = DEFAULTS.decode();

    @Option(names = "--port-base", paramLabel = "N", converter = Values.Int.class,
            description = "N as above; 0 = ephemeral ports; default: ${DEFAULT-VALUE}")
    int portBase = DEFAULTS.portBase();

    @Option(names = "--host", paramLabel = "H", description = "bind address; default: ${DEFAULT-VALUE}")
    String host = DEFAULTS.host();

    @Option(names = "--no-all-ranks", description = "do not serve the all-ranks endpoint")
    boolean noAllRanks;

    @Option(names = "--step-a", paramLabel = "S", converter = Values.Real.class,
            description = "seconds per KV token of the heaviest rank; default: ${DEFAULT-VALUE}")
    double stepA = DEFAULTS.stepA();

    @Option(names = "--step-b", paramLabel = "S", converter = Values.Real.class,
            description = "fixed seconds per decode step; default: ${DEFAULT-VALUE}")
    double stepB = DEFAULTS.stepB();

    @Option(names = "--step-c", paramLabel = "S", converter = Values.Real.class,
            description = "seconds per request of the largest batch; default: ${DEFAULT-VALUE}")
    double stepC = DEFAULTS.stepC();

    @Option(names = "--time-factor", paramLabel = "F", converter = Values.Real.class,
            description = "wall seconds per modelled second, > 0; default: ${DEFAULT-VALUE}")
    double timeFactor = DEFAULTS.timeFactor();

    @Option(names = "--capacity", paramLabel = "B", converter = Values.Int.class,
            description = "running requests per rank (max_num_seqs); default: ${DEFAULT-VALUE}")
    int capacity = DEFAULTS.capacity();

    @Option(names = "--stream-interval", paramLabel = "K", converter = Values.Int.class,
            description = "tokens per streamed chunk (vLLM's --stream-interval); default: ${DEFAULT-VALUE}")
    int streamInterval = DEFAULTS.streamInterval();

    @Option(names = "--seed", paramLabel = "N", converter = Values.Long.class,
            description = "seed of the output-length draws; default: ${DEFAULT-VALUE}")
    long seed = DEFAULTS.seed();

    @Option(names = "--prefill-per-token", paramLabel = "S", converter = Values.Real.class,
            description = "prefill seconds per prompt token; default: ${DEFAULT-VALUE}")
    double prefillPerToken = DEFAULTS.prefillPerToken();

    @Option(names = "--prefill-fixed", paramLabel = "S", converter = Values.Real.class,
            description = "fixed prefill seconds per request; default: ${DEFAULT-VALUE}")
    double prefillFixed = DEFAULTS.prefillFixed();

    @Option(names = "--handle-ttl", paramLabel = "S", converter = Values.Real.class,
            description = "seconds a KV handle stays valid; default: ${DEFAULT-VALUE}")
    double handleTtl = DEFAULTS.handleTtlSeconds();

    @Option(names = "--default-max-tokens", paramLabel = "N", converter = Values.Int.class,
            description = "output cap when a request gives no max_tokens; default: ${DEFAULT-VALUE}")
    int defaultMaxTokens = DEFAULTS.defaultMaxTokens();

    @Option(names = "--model", paramLabel = "NAME", description = "served model name; default: ${DEFAULT-VALUE}")
    String model = DEFAULTS.model();

    @Option(names = "--stream-queue", paramLabel = "N", converter = Values.Int.class,
            description = "chunks a slow client may lag before it is cut; default: ${DEFAULT-VALUE}")
    int streamQueue = DEFAULTS.streamQueueChunks();

    @Option(names = "--fault", paramLabel = "JSON", description = "a fault applied at start, a POST /sim/faults"
            + " body, e.g. '{\"rank\": 1, \"slowFactor\": 3}'; repeatable; default: none")
    List<String> faults = new ArrayList<>();

    @Option(names = "--handles-from", paramLabel = "URL", description = "also accept the KV handles issued by the"
            + " prefill servers of the sim-cluster at URL (any of its endpoints, e.g. http://127.0.0.1:18199): a shared"
            + " prefill tier in front of this one's decode ranks; that cluster checks and takes each (POST"
            + " /sim/handles/take); repeatable; default: only this cluster's own")
    List<String> handlesFrom = new ArrayList<>();

    @Override
    String needsValue(String option) {
        return "option " + option + " needs a value";
    }

    /** The cluster the options give. @throws UsageException naming the option */
    SimConfig config() throws UsageException {
        SimConfig.Builder b = SimConfig.builder().prefill(prefill).decode(decode).portBase(portBase).host(host)
                .allRanksEndpoint(!noAllRanks).stepA(stepA).stepB(stepB).stepC(stepC).timeFactor(timeFactor)
                .capacity(capacity).streamInterval(streamInterval).seed(seed).prefillPerToken(prefillPerToken)
                .prefillFixed(prefillFixed).handleTtlSeconds(handleTtl).defaultMaxTokens(defaultMaxTokens)
                .model(model).streamQueueChunks(streamQueue);
        faults.forEach(b::fault);
        handlesFrom.forEach(b::handlesFrom);
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    @Override
    int run() throws UsageException, InterruptedException {
        SimConfig config = config();
        SimCluster cluster;
        try {
            cluster = SimCluster.start(config);
        } catch (IllegalArgumentException e) {
            err.println("balanceroute sim-cluster: " + e.getMessage());
            return 2;
        } catch (IOException e) {
            err.println("balanceroute sim-cluster: " + e.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            cluster.close();
            stopped.countDown();
        }, "enginesim-shutdown"));
        out.println("Simulated vLLM cluster: " + config.prefill() + " prefill, " + config.decode()
                + " decode ranks, model '" + config.model() + "'; a=" + config.stepA() + " b=" + config.stepB()
                + " c=" + config.stepC() + " time factor " + config.timeFactor() + ", B=" + config.capacity()
                + ", stream interval " + config.streamInterval());
        for (String line : cluster.describe()) {
            out.println("  " + line);
        }
        if (!config.handlePeers().isEmpty()) {
            out.println("  also accepts the KV handles of the prefill servers of " + String.join(", ", config.handlePeers()));
        }
        out.println("Stats: GET /sim/stats and /sim/series (POST /sim/stats/reset), faults: POST /sim/faults, on every endpoint."
                + " time factor: POST /sim/timing. Ctrl-C stops.");
        out.flush();
        stopped.await();
        return 0;
    }
}
