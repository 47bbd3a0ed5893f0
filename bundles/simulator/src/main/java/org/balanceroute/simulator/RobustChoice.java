package org.balanceroute.simulator;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which candidate the tuner puts in place of the settings in force, judged part by part of the
 * window it replayed ({@link PartImbalance}): candidates differ by a few percent, the size of the
 * variation between minutes of traffic, so a winner on the whole window is often a fluke of one
 * part. A candidate is chosen only if its imbalance is lower than the settings in force on at
 * least {@link #required()} of the parts (a sign test: by chance alone, 5 of 5 parts comes up
 * once in 32); among those, the lowest median over the parts of its imbalance relative to theirs
 * wins (ties: the lowest mean). No candidate: the settings in force stay.
 *
 * <p>Over several replays of the window, the {@code agreement} gate comes first: the candidates'
 * mean imbalance over the first half of the replays and over the second half are ranked, and if
 * the two rankings' correlation ({@link #rankCorrelation}, Spearman's) is below the gate the
 * replays cannot tell the candidates apart (their differences are the simulator's noise) and the
 * settings in force stay, whatever the lowest mean is: picking the best of a few dozen noisy
 * scores otherwise picks the luckiest.
 *
 * @param parts the steady window is cut into this many spans of equal simulated time; 1: the
 *     whole window decides, the lowest imbalance wins (the rule before parts, {@link #WHOLE_WINDOW})
 * @param quorum the share of the parts a candidate must win, in (0.5, 1]
 * @param agreement the least rank correlation, in [-1, 1], between the halves of the replays for
 *     any candidate to replace the settings in force; {@link #NO_GATE} (-1): no gate
 */
public record RobustChoice(int parts, double quorum, double agreement) {

    public static final int MAX_PARTS = 60;

    /** {@link #DEFAULT}'s parts and agreement, as constants (the tuner's metatype defaults are these). */
    public static final int DEFAULT_PARTS = 1;
    public static final double DEFAULT_AGREEMENT = 0.5;

    /** The agreement that lets every search through: no gate. */
    public static final double NO_GATE = -1;

    /** The lowest steady-state imbalance over the whole window wins. */
    public static final RobustChoice WHOLE_WINDOW = new RobustChoice(1, 1);

    /**
     * What the runtime and {@code balanceroute tune} use unless configured: the lowest mean over
     * the replays wins, if the halves of the replays rank the candidates alike (rank correlation
     * at least 0.5). Chosen on measurement (docs/self-tuning.md): on 20 workloads the halves of 8
     * replays agreed at 0.58 to 0.94 where the settings differ beyond noise (Azure) and at -0.40 to
     * 0.31 where they do not (Mooncake, the built-in workload).
     */
    public static final RobustChoice DEFAULT = new RobustChoice(DEFAULT_PARTS, 1, DEFAULT_AGREEMENT);

    /** No agreement gate. */
    public RobustChoice(int parts, double quorum) {
        this(parts, quorum, NO_GATE);
    }

    public RobustChoice {
        if (parts < 1 || parts > MAX_PARTS) {
            throw new IllegalArgumentException("parts must be in [1, " + MAX_PARTS + "], got " + parts);
        }
        if (!(quorum > 0.5 && quorum <= 1)) {
            throw new IllegalArgumentException("quorum must be in (0.5, 1], got " + quorum);
        }
        if (!(agreement >= -1 && agreement <= 1)) {
            throw new IllegalArgumentException("agreement must be in [-1, 1], got " + agreement);
        }
    }

    /**
     * Whether replays whose halves rank the candidates with this correlation may replace the
     * settings in force; NaN (no ranking: every candidate alike) does not, unless there is no gate.
     */
    public boolean agreed(double rankCorrelation) {
        return agreement <= NO_GATE || rankCorrelation >= agreement;
    }

    /**
     * Spearman's rank correlation of two equally long series (ties get their mean rank); NaN with
     * fewer than two values or when either series is constant.
     */
    public static double rankCorrelation(double[] x, double[] y) {
        if (x.length != y.length) {
            throw new IllegalArgumentException("series of " + x.length + " and " + y.length + " values");
        }
        if (x.length < 2) {
            return Double.NaN;
        }
        double[] rx = ranks(x), ry = ranks(y);
        double mean = (x.length + 1) / 2.0, sxy = 0, sxx = 0, syy = 0;
        for (int i = 0; i < x.length; i++) {
            sxy += (rx[i] - mean) * (ry[i] - mean);
            sxx += (rx[i] - mean) * (rx[i] - mean);
            syy += (ry[i] - mean) * (ry[i] - mean);
        }
        return sxx == 0 || syy == 0 ? Double.NaN : sxy / Math.sqrt(sxx * syy);
    }

    /** 1-based ranks, ties sharing their mean rank. */
    private static double[] ranks(double[] v) {
        Integer[] order = new Integer[v.length];
        for (int i = 0; i < v.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Double.compare(v[a], v[b]));
        double[] r = new double[v.length];
        for (int i = 0; i < v.length;) {
            int j = i;
            while (j + 1 < v.length && v[order[j + 1]] == v[order[i]]) {
                j++;
            }
            for (int k = i; k <= j; k++) {
                r[order[k]] = (i + j) / 2.0 + 1;
            }
            i = j + 1;
        }
        return r;
    }

    /** The parts a candidate must win: quorum x parts, rounded up. */
    public int required() {
        return required(parts);
    }

    /** Of {@code n} comparisons (parts, or replays of the window), the quorum: quorum x n, rounded up. */
    public int required(int n) {
        return (int) Math.ceil(quorum * n - 1e-9);
    }

    /** The parts on which the candidate's imbalance is lower than the current one's (a part without steps is no win). */
    public static int wins(List<Double> current, List<Double> candidate) {
        int n = 0;
        for (int p = 0; p < current.size(); p++) {
            if (candidate.get(p) < current.get(p)) {
                n++;
            }
        }
        return n;
    }

    /**
     * @param current the settings in force, average imbalance per part
     * @param candidates each candidate's, likewise
     * @return the index of the chosen candidate, or -1: the settings in force stay
     */
    public int winner(List<Double> current, List<List<Double>> candidates) {
        int best = -1;
        double bestMedian = Double.POSITIVE_INFINITY, bestMean = Double.POSITIVE_INFINITY;
        for (int i = 0; i < candidates.size(); i++) {
            List<Double> c = candidates.get(i);
            if (wins(current, c) < required()) {
                continue;
            }
            double[] ratios = ratios(current, c);
            double median = median(ratios);
            double mean = Arrays.stream(ratios).average().orElse(1);
            if (median < bestMedian || (median == bestMedian && mean < bestMean)) {
                best = i;
                bestMedian = median;
                bestMean = mean;
            }
        }
        return best;
    }

    /** Candidate over current per part; a part without steps on either side counts as 1 (no evidence). */
    private static double[] ratios(List<Double> current, List<Double> candidate) {
        List<Double> out = new ArrayList<>();
        for (int p = 0; p < current.size(); p++) {
            double cur = current.get(p), c = candidate.get(p);
            out.add(Double.isNaN(cur) || Double.isNaN(c) ? 1 : cur == 0 ? (c == 0 ? 1 : Double.POSITIVE_INFINITY) : c / cur);
        }
        return out.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
