package org.balanceroute.cli;

import org.balanceroute.simulator.SimulationConfig;
import picocli.CommandLine.Option;

/** The simulated pool's options of simulate, sweep and tune, but for --workers. */
class PoolOptions {

    @Option(names = "--capacity", paramLabel = "B", description = "running requests per worker (max_num_seqs);"
            + " simulate --groups also takes one per decode instance, e.g. 64,128; default: ${DEFAULT-VALUE}")
    String capacity = String.valueOf(SimulationConfig.DEFAULT_CAPACITY);

    @Option(names = "--step-a", paramLabel = "SECONDS", converter = Values.Real.class,
            description = "seconds per KV token of the heaviest worker; default: ${DEFAULT-VALUE}")
    double stepA = SimulationConfig.DEFAULT_STEP_A;

    @Option(names = "--step-b", paramLabel = "SECONDS", converter = Values.Real.class,
            description = "fixed seconds per step; default: ${DEFAULT-VALUE}")
    double stepB = SimulationConfig.DEFAULT_STEP_B;

    @Option(names = "--step-c", paramLabel = "SECONDS", converter = Values.Real.class,
            description = "seconds per request of the largest batch; default: ${DEFAULT-VALUE}")
    double stepC = 0;

    @Option(names = "--prefill-per-token", paramLabel = "S", converter = Values.Real.class,
            description = "prefill seconds per prompt token; default: ${DEFAULT-VALUE}")
    double prefillPerToken = 0;

    @Option(names = "--prefill-fixed", paramLabel = "S", converter = Values.Real.class,
            description = "fixed prefill seconds; default: ${DEFAULT-VALUE}")
    double prefillFixed = 0;

    @Option(names = "--seed", paramLabel = "N", converter = Values.Long.class,
            description = "seed of every random choice; default: ${DEFAULT-VALUE}")
    long seed = 1;

    /** The simulated pool these options give, with G workers in one decode instance. */
    SimulationConfig config(int workers) throws UsageException {
        int[] b = capacities();
        if (b.length > 1) {
            throw new UsageException("--capacity: " + b.length + " values (one per decode instance) need simulate"
                    + " --groups with as many instances; give one value");
        }
        return new SimulationConfig(workers, b[0], stepA, stepB, stepC, prefillPerToken, prefillFixed, seed);
    }

    /** The values of --capacity: one, or one per decode instance. */
    int[] capacities() throws UsageException {
        return Values.intList("--capacity", capacity);
    }
}
