package org.balanceroute.simulator;

/**
 * How well a termination predictor's answers match the truth: pairs of predicted and true
 * remaining decode steps, both clipped to [1, H+1] (the predictor's {@code SURVIVES} is H+1,
 * "past the horizon", and so is every true remainder beyond it; a horizon-H classifier can say
 * no more). Reports the mean absolute error, that of the best constant answer (the median of
 * the true values, what a predictor that knows nothing per request could reach), and Spearman's
 * rank correlation (ties get their mean rank).
 *
 * <p>Kept as a joint histogram of the (H+2)^2 value pairs, so memory is O(H^2) however many
 * pairs are added and the ranks are exact. Not thread-safe.
 */
public final class PredictionAccuracy {

    private final int horizon;
    private final long[][] joint; // [predicted][true], values 1..H+1
    private long count;

    /** @param horizon H >= 0 */
    public PredictionAccuracy(int horizon) {
        if (horizon < 0) {
            throw new IllegalArgumentException("horizon must be >= 0, got " + horizon);
        }
        this.horizon = horizon;
        this.joint = new long[horizon + 2][horizon + 2];
    }

    /** One answer: {@code predicted} steps (0 = survives) against {@code actual} true remaining steps. */
    public void add(int predicted, int actual) {
        joint[clip(predicted == 0 ? horizon + 1 : predicted)][clip(actual)]++;
        count++;
    }

    private int clip(int steps) {
        return Math.max(1, Math.min(horizon + 1, steps));
    }

    public long count() {
        return count;
    }

    /** Mean |predicted - true| in steps; NaN with no pairs. */
    public double meanAbsoluteError() {
        double sum = 0;
        for (int p = 1; p <= horizon + 1; p++) {
            for (int t = 1; t <= horizon + 1; t++) {
                sum += joint[p][t] * (double) Math.abs(p - t);
            }
        }
        return sum / count;
    }

    /** The mean absolute error of always answering the median of the true values (the best constant). */
    public double constantMeanAbsoluteError() {
        long[] truth = marginal(false);
        long seen = 0;
        int median = 1;
        while (2 * (seen + truth[median]) < count) {
            seen += truth[median];
            median++;
        }
        double sum = 0;
        for (int t = 1; t <= horizon + 1; t++) {
            sum += truth[t] * (double) Math.abs(t - median);
        }
        return sum / count;
    }

    /** Spearman's rho of predicted against true; NaN when either side is constant (no ranking to compare). */
    public double rankCorrelation() {
        double[] rankP = midRanks(marginal(true));
        double[] rankT = midRanks(marginal(false));
        double mean = (count + 1) / 2.0;
        double cov = 0, varP = 0, varT = 0;
        for (int p = 1; p <= horizon + 1; p++) {
            for (int t = 1; t <= horizon + 1; t++) {
                long n = joint[p][t];
                if (n != 0) {
                    double dp = rankP[p] - mean, dt = rankT[t] - mean;
                    cov += n * dp * dt;
                    varP += n * dp * dp;
                    varT += n * dt * dt;
                }
            }
        }
        return varP == 0 || varT == 0 ? Double.NaN : cov / Math.sqrt(varP * varT);
    }

    private long[] marginal(boolean predicted) {
        long[] m = new long[horizon + 2];
        for (int p = 1; p <= horizon + 1; p++) {
            for (int t = 1; t <= horizon + 1; t++) {
                m[predicted ? p : t] += joint[p][t];
            }
        }
        return m;
    }

    /** Per value, the mean of the ranks 1..n its occurrences take. */
    private static double[] midRanks(long[] histogram) {
        double[] rank = new double[histogram.length];
        long below = 0;
        for (int v = 1; v < histogram.length; v++) {
            rank[v] = below + (histogram[v] + 1) / 2.0;
            below += histogram[v];
        }
        return rank;
    }
}
