package org.balanceroute.simulator;

import java.util.List;
import org.balanceroute.trace.TraceRequest;

/**
 * Which decode steps count as the steady state of a run: those that start at or after the first
 * arrival plus a warm-up, and before the last arrival. That leaves out the ramp (an empty cluster
 * filling up) and the drain (after the last arrival no new request comes, the pool empties and
 * the last long outputs run nearly alone). The run's all-steps figures are kept beside.
 *
 * <p>In the window: the average imbalance is the mean of max_g L_g - min_g L_g over its steps;
 * the throughput is the output tokens of its steps over their summed duration; TPOT p95 is over
 * the requests whose first and last tokens both came out inside it.
 *
 * @param warmupSeconds simulated seconds after the first arrival left out; negative means the
 *     default, {@value #DEFAULT_WARMUP_FRACTION} of the arrival span
 */
public record SteadyState(double warmupSeconds) {

    public static final double DEFAULT_WARMUP_FRACTION = 0.1;

    /** The default warm-up, a tenth of the arrival span. */
    public static final SteadyState DEFAULT = new SteadyState(-1);

    public SteadyState {
        if (Double.isNaN(warmupSeconds) || Double.isInfinite(warmupSeconds)) {
            throw new IllegalArgumentException("--warmup must be a finite number of seconds, got " + warmupSeconds);
        }
    }

    /** [start, end) in simulated seconds for a trace as replayed (arrivals already scaled). */
    public Window window(List<TraceRequest> trace) {
        if (trace.isEmpty()) {
            return new Window(0, 0);
        }
        double first = Double.POSITIVE_INFINITY, last = Double.NEGATIVE_INFINITY;
        for (TraceRequest t : trace) {
            first = Math.min(first, t.arrivalSeconds());
            last = Math.max(last, t.arrivalSeconds());
        }
        double warmup = warmupSeconds < 0 ? DEFAULT_WARMUP_FRACTION * (last - first) : warmupSeconds;
        return new Window(first + warmup, last);
    }

    /** Steps starting in [startS, endS) are steady; empty when startS >= endS. */
    public record Window(double startS, double endS) {

        public boolean contains(double timeS) {
            return timeS >= startS && timeS < endS;
        }
    }
}
