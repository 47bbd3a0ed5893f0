package org.balanceroute.simulator;

import java.util.ArrayList;
import java.util.List;
import org.balanceroute.api.PoolView;

/**
 * The steady-state average imbalance of a run per part of its steady window: the window cut into
 * {@code parts} spans of equal simulated time, each step counted in the span it starts in, as
 * {@link SteadyState} counts it for the whole window (max_g L_g - min_g L_g).
 */
final class PartImbalance implements StepObserver {

    private final SteadyState.Window window;
    private final double[] sums;
    private final long[] steps;

    PartImbalance(SteadyState.Window window, int parts) {
        this.window = window;
        this.sums = new double[parts];
        this.steps = new long[parts];
    }

    @Override
    public void onStep(long step, double timeS, PoolView view) {
        if (!window.contains(timeS)) {
            return;
        }
        int part = (int) Math.min(sums.length - 1, (timeS - window.startS()) / (window.endS() - window.startS())
                * sums.length);
        long max = 0, min = Long.MAX_VALUE;
        for (int g = 0, n = view.workers(); g < n; g++) {
            long l = view.load(g);
            max = Math.max(max, l);
            min = Math.min(min, l);
        }
        sums[part] += max - min;
        steps[part]++;
    }

    /** Per part, its average imbalance; NaN for a part no step started in. */
    List<Double> averages() {
        List<Double> out = new ArrayList<>(sums.length);
        for (int p = 0; p < sums.length; p++) {
            out.add(steps[p] == 0 ? Double.NaN : sums[p] / steps[p]);
        }
        return out;
    }
}
