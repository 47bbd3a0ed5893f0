package org.balanceroute.enginesim.internal;

import java.util.List;
import org.balanceroute.enginesim.SimConfig;

/** Option parsing of {@code ./balanceroute sim-cluster}; every error names its option. */
public final class SimClusterCommand {

    public static final String USAGE = """
            Usage: ./balanceroute sim-cluster [options]

            Starts a simulated vLLM DP cluster on localhost and serves until stopped (Ctrl-C):
            prefill server i on port N+i, decode rank g on N+100+g (one endpoint per DP rank),
            the all-ranks endpoint (header X-data-parallel-rank) on N+99.

            Options:
              --prefill P             prefill servers, 0..99                                (2)
              --decode G              decode DP ranks, 1..1024                             (8)
              --port-base N           N as above; 0 = ephemeral ports                  (18100)
              --host H                bind address                                 (127.0.0.1)
              --no-all-ranks          do not serve the all-ranks endpoint
              --step-a S              seconds per KV token of the heaviest rank         (2e-7)
              --step-b S              fixed seconds per decode step                    (0.020)
              --step-c S              seconds per request of the largest batch             (0)
              --time-factor F         wall seconds per modelled second, > 0              (1.0)
              --capacity B            running requests per rank (max_num_seqs)            (64)
              --stream-interval K     tokens per streamed chunk (--stream-interval)        (1)
              --seed N                seed of the output-length draws                      (1)
              --prefill-per-token S   prefill seconds per prompt token                  (2e-5)
              --prefill-fixed S       fixed prefill seconds per request                (0.010)
              --handle-ttl S          seconds a KV handle stays valid                    (480)
              --default-max-tokens N  output cap when a request gives no max_tokens      (256)
              --model NAME            served model name                     (balanceroute-sim)
              --stream-queue N        chunks a slow client may lag before it is cut     (1024)
              --fault JSON            a fault applied at start, a POST /sim/faults body,
                                      e.g. '{"rank": 1, "slowFactor": 3}'; repeatable    (none)
            """;

    /** {@code --help} was asked. */
    public static final class HelpRequested extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HelpRequested() {
            super(null, null, false, false);
        }
    }

    private SimClusterCommand() {
    }

    /** @throws IllegalArgumentException naming the option; {@link HelpRequested} for --help */
    public static SimConfig parse(List<String> args) {
        SimConfig.Builder b = SimConfig.builder();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (name.equals("-h") || name.equals("--help")) {
                throw new HelpRequested();
            }
            if (name.equals("--no-all-ranks")) {
                b.allRanksEndpoint(false);
                continue;
            }
            if (value == null) {
                if (i + 1 >= args.size()) {
                    throw new IllegalArgumentException(known(name) ? "option " + name + " needs a value"
                            : "unknown option '" + arg + "'");
                }
                if (known(name)) {
                    value = args.get(++i);
                }
            }
            switch (name) {
                case "--prefill" -> b.prefill(integer(name, value));
                case "--decode" -> b.decode(integer(name, value));
                case "--port-base" -> b.portBase(integer(name, value));
                case "--host" -> b.host(value);
                case "--step-a" -> b.stepA(number(name, value));
                case "--step-b" -> b.stepB(number(name, value));
                case "--step-c" -> b.stepC(number(name, value));
                case "--time-factor" -> b.timeFactor(number(name, value));
                case "--capacity" -> b.capacity(integer(name, value));
                case "--stream-interval" -> b.streamInterval(integer(name, value));
                case "--seed" -> b.seed(longValue(name, value));
                case "--prefill-per-token" -> b.prefillPerToken(number(name, value));
                case "--prefill-fixed" -> b.prefillFixed(number(name, value));
                case "--handle-ttl" -> b.handleTtlSeconds(number(name, value));
                case "--default-max-tokens" -> b.defaultMaxTokens(integer(name, value));
                case "--model" -> b.model(value);
                case "--stream-queue" -> b.streamQueueChunks(integer(name, value));
                case "--fault" -> b.fault(value);
                default -> throw new IllegalArgumentException("unknown option '" + arg + "'");
            }
        }
        return b.build();
    }

    private static boolean known(String name) {
        return List.of("--prefill", "--decode", "--port-base", "--host", "--step-a", "--step-b", "--step-c",
                "--time-factor", "--capacity", "--stream-interval", "--seed", "--prefill-per-token", "--prefill-fixed",
                "--handle-ttl", "--default-max-tokens", "--model", "--stream-queue", "--fault").contains(name);
    }

    private static int integer(String option, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be an integer, got '" + value + "'");
        }
    }

    private static long longValue(String option, String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be an integer, got '" + value + "'");
        }
    }

    private static double number(String option, String value) {
        try {
            double d = Double.parseDouble(value.trim());
            if (!Double.isFinite(d)) {
                throw new NumberFormatException();
            }
            return d;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be a number, got '" + value + "'");
        }
    }
}
