package org.balanceroute.simulator;

import java.util.List;
import org.balanceroute.core.DecodeLayout;
import org.balanceroute.trace.TraceRequest;

/**
 * How heavily a trace loads a simulated cluster: its offered decode work against the cluster's
 * decode capacity, both estimated from the trace and the step model of {@link SimulationConfig}.
 *
 * <p><b>Capacity.</b> At saturation every worker runs B requests. A request with prompt s and o
 * output tokens puts s + j on its worker at its (j+1)-th step, j = 0..o-1, so over the trace the
 * mean KV load of one occupied slot (token-weighted: a request holds a slot for o steps) is
 *
 * <pre>
 *   w = sum_i (o_i s_i + o_i (o_i - 1) / 2) / sum_i o_i
 * </pre>
 *
 * With the load perfectly balanced every worker holds B * w tokens, a step lasts
 * {@code a * B * w + b + c * B}, and the cluster emits G * B output tokens per step:
 *
 * <pre>
 *   capacity = G * B / (a * B * w + b + c * B)          output tokens per second
 * </pre>
 *
 * With several decode instances ({@link SimulationConfig#layout}) each runs at its own pace, so
 * their capacities add up: {@code capacity = sum_i G_i * B_i / (a * B_i * w + b + c * B_i)}, and
 * load 1.0 still means every slot of every instance busy.
 *
 * <p>That is the most any router can get out of the cluster (a real one loses the imbalance: the
 * step follows the heaviest worker, not the mean), so at load 1.0 even a perfect balancer is
 * saturated.
 *
 * <p><b>Offered load.</b> The trace offers {@code sum_i o_i / span} output tokens per second,
 * span = last arrival - first arrival; load = offered / capacity. Replaying at load X divides
 * every arrival time by {@code X * capacity / offered} (the rate scale that gives X).
 *
 * @param capacityTokPerS the cluster's decode capacity, output tokens per second
 * @param offeredTokPerS what the trace offers at its own pace (rate scale 1)
 * @param meanSlotLoad w, tokens
 */
public record OfferedLoad(double capacityTokPerS, double offeredTokPerS, double meanSlotLoad) {

    /**
     * @param trace at its own pace (rate scale 1), at least two requests with different arrivals
     * @throws IllegalArgumentException if the trace has no arrival span to derive a rate from
     */
    public static OfferedLoad of(List<TraceRequest> trace, SimulationConfig config) {
        if (trace.size() < 2) {
            throw new IllegalArgumentException("--load needs at least two requests to derive an arrival rate, got "
                    + trace.size());
        }
        double first = Double.POSITIVE_INFINITY, last = Double.NEGATIVE_INFINITY;
        double tokens = 0, slotLoad = 0;
        for (TraceRequest t : trace) {
            first = Math.min(first, t.arrivalSeconds());
            last = Math.max(last, t.arrivalSeconds());
            double o = t.outputTokens();
            tokens += o;
            slotLoad += o * t.inputTokens() + o * (o - 1) / 2;
        }
        double span = last - first;
        if (!(span > 0)) {
            throw new IllegalArgumentException("--load needs arrivals spread over time; every request of the trace "
                    + "arrives at " + first + " s");
        }
        double w = slotLoad / tokens;
        DecodeLayout layout = config.layout();
        double capacity = 0;
        for (int i = 0; i < layout.groups(); i++) {
            int b = layout.capacityOfGroup(i);
            double step = config.stepA() * b * w + config.stepB() + config.stepC() * b;
            capacity += (double) layout.size(i) * b / step;
        }
        return new OfferedLoad(capacity, tokens / span, w);
    }

    /** Offered over capacity at a given rate scale. */
    public double loadAt(double rateScale) {
        return rateScale * offeredTokPerS / capacityTokPerS;
    }

    /** The rate scale that offers {@code load} times the capacity. */
    public double rateScaleFor(double load) {
        return load * capacityTokPerS / offeredTokPerS;
    }
}
