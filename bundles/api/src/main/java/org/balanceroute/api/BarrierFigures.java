package org.balanceroute.api;

/**
 * What each decode instance's barrier costs after a dispatch step, the rules written once (the
 * router's step hook and a snapshot use them). In DP decode every rank of an instance waits at the
 * step's barrier for the heaviest, so with the step law {@code T(L) ~ L} a step lasts as long as
 * the heaviest rank's {@code M = max L_g} takes, and over the instance's {@code G} ranks:
 * <ul>
 *   <li>the idle capacity is {@code I = G*M - sum L_g} KV tokens: what the lighter ranks could
 *       have carried in the time the heaviest sets;</li>
 *   <li>the fraction of the step the barrier wastes is {@code 1 - mean L / M = I / (G*M)} (0 when
 *       {@code M = 0});</li>
 *   <li>the straggler is the heaviest rank, when one is heavier than every other.</li>
 * </ul>
 * Ranks draining do not count (as in the imbalance, {@link PoolSnapshot#spread}). Mutable and
 * reused step after step: the router owns the one it hands its observers, valid during the call.
 */
public final class BarrierFigures {

    private int instances;
    private long[] imbalance = new long[0];
    private long[] idle = new long[0];
    /** {@code G*M}: the tokens the step's time could have served on the instance. */
    private long[] full = new long[0];
    private int[] straggler = new int[0];
    private long totalImbalance;

    /** Sets the number of instances (new arrays only when it changes: a layout change); all figures 0. */
    public void reset(int instances) {
        if (imbalance.length != instances) {
            imbalance = new long[instances];
            idle = new long[instances];
            full = new long[instances];
            straggler = new int[instances];
        }
        this.instances = instances;
        for (int i = 0; i < instances; i++) {
            imbalance[i] = 0;
            idle[i] = 0;
            full[i] = 0;
            straggler[i] = -1;
        }
        totalImbalance = 0;
    }

    /**
     * Measures instance {@code i} over the workers {@code [from, to)} of {@code loads} (a group's
     * workers are contiguous): one pass, no allocation.
     */
    public void measure(int i, long[] loads, boolean[] draining, int from, int to) {
        int counted = 0;
        long max = Long.MIN_VALUE;
        long sum = 0;
        int heaviest = -1;
        boolean tie = false;
        for (int g = from; g < to; g++) {
            if (draining[g]) {
                continue;
            }
            long l = loads[g];
            counted++;
            sum += l;
            if (l > max) {
                max = l;
                heaviest = g;
                tie = false;
            } else if (l == max) {
                tie = true;
            }
        }
        long spread = PoolSnapshot.spread(loads, draining, from, to);
        totalImbalance += spread - imbalance[i];
        imbalance[i] = spread;
        if (counted == 0 || max <= 0) {
            idle[i] = 0;
            full[i] = 0;
            straggler[i] = -1;
            return;
        }
        full[i] = counted * max;
        idle[i] = full[i] - sum;
        straggler[i] = tie || counted < 2 ? -1 : heaviest;
    }

    public int instances() {
        return instances;
    }

    /** Instance i's heaviest minus its lightest rank's load ({@link PoolSnapshot#spread}). */
    public long imbalance(int i) {
        return imbalance[i];
    }

    /** The pool's imbalance: the sum of its instances'. */
    public long imbalance() {
        return totalImbalance;
    }

    /**
     * The instances' imbalances as an array the figures own, {@link #instances()} long: read it
     * during the call, never keep or change it.
     */
    public long[] imbalances() {
        return imbalance;
    }

    /** Instance i's idle capacity {@code G*M - sum L_g}, KV tokens. */
    public long idle(int i) {
        return idle[i];
    }

    /** Instance i's {@code G*M}, KV tokens. */
    public long full(int i) {
        return full[i];
    }

    /** The fraction of instance i's step its barrier wastes, {@code I / (G*M)}; 0 when nothing runs. */
    public double wasteFraction(int i) {
        return full[i] == 0 ? 0 : (double) idle[i] / full[i];
    }

    /**
     * Instance i's straggler: the index in the pool of its rank heavier than every other, or -1
     * (a tie at the top, fewer than two ranks counted, or nothing running).
     */
    public int straggler(int i) {
        return straggler[i];
    }
}
