package org.balanceroute.simulator;

import java.util.List;
import java.util.stream.IntStream;
import org.balanceroute.trace.TraceRequest;

/**
 * A trace as a run reads it: when each request is ready for decode (arrival plus prefill), its
 * true output length, and the request indices by ready time. Built once per run.
 */
final class PreparedTrace {

    final int size;
    final double[] ready;
    final int[] output;
    /** Request indices by ready time; stable, so equal times keep trace order. */
    final int[] order;
    final long totalTokens;

    PreparedTrace(List<TraceRequest> trace, SimulationConfig config) {
        size = trace.size();
        ready = new double[size];
        output = new int[size];
        long tokens = 0;
        for (int i = 0; i < size; i++) {
            TraceRequest t = trace.get(i);
            ready[i] = t.arrivalSeconds() + config.prefillSeconds(t.inputTokens());
            output[i] = t.outputTokens();
            tokens += output[i];
        }
        totalTokens = tokens;
        order = IntStream.range(0, size).boxed()
                .sorted((a, b) -> Double.compare(ready[a], ready[b]))
                .mapToInt(Integer::intValue).toArray();
    }
}
