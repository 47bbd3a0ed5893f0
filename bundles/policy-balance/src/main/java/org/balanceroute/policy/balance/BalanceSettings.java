package org.balanceroute.policy.balance;

/**
 * Tunables of BR-0 / BR-H, with the spec's defaults. Validated on construction: a bad value
 * throws {@link IllegalArgumentException} naming the field and its range, so a caller can keep
 * its previous settings.
 *
 * @param sGreedy Stage 1 runs while the total free slots exceed this; 0 means G (the default)
 * @param rMax Stage 2 candidates per worker: the oldest R_max waiting requests (1..16)
 * @param horizon H, decode steps BR-H looks ahead (0..1000; 0 with alpha=1, beta=G is BR-0)
 * @param alpha weight of the safe fill term (> 0)
 * @param beta weight of each future step's overflow (>= 0)
 * @param gamma discount per step ahead, in (0, 1]
 * @param confidence the predictor's gate: below it a request is assumed to survive past H, in [0, 1]
 */
public record BalanceSettings(int sGreedy, int rMax, int horizon, double alpha, double beta,
        double gamma, double confidence) {

    public static final int DEFAULT_S_GREEDY = 0;
    public static final int MIN_S_GREEDY = 0;
    public static final int DEFAULT_R_MAX = 8;
    public static final int MIN_R_MAX = 1;
    public static final int MAX_R_MAX = 16;
    public static final int DEFAULT_HORIZON = 80;
    public static final int MIN_HORIZON = 0;
    public static final int MAX_HORIZON = 1000;
    public static final double DEFAULT_ALPHA = 1.0;
    /** The smallest positive double: alpha &gt; 0, written as an inclusive bound (metatype has no other). */
    public static final double MIN_ALPHA = Double.MIN_VALUE;
    public static final double DEFAULT_BETA = 14.67;
    public static final double MIN_BETA = 0.0;
    public static final double DEFAULT_GAMMA = 0.64;
    /** The smallest positive double: gamma &gt; 0. */
    public static final double MIN_GAMMA = Double.MIN_VALUE;
    public static final double MAX_GAMMA = 1.0;
    public static final double DEFAULT_CONFIDENCE = 0.5;
    public static final double MIN_CONFIDENCE = 0.0;
    public static final double MAX_CONFIDENCE = 1.0;

    /**
     * The bounds are inclusive and are these constants, which the metatype of the BR
     * configuration ({@code org.balanceroute.policy.balance}) carries as its min and max, so the
     * admin API validates against exactly what is checked here. Numbers must also be finite.
     */
    public BalanceSettings {
        require(sGreedy >= MIN_S_GREEDY, "sGreedy", sGreedy, ">= " + MIN_S_GREEDY + " (0 means G)");
        require(rMax >= MIN_R_MAX && rMax <= MAX_R_MAX, "rMax", rMax, MIN_R_MAX + ".." + MAX_R_MAX);
        require(horizon >= MIN_HORIZON && horizon <= MAX_HORIZON, "horizon", horizon, MIN_HORIZON + ".." + MAX_HORIZON);
        require(alpha >= MIN_ALPHA && Double.isFinite(alpha), "alpha", alpha, "> 0");
        require(beta >= MIN_BETA && Double.isFinite(beta), "beta", beta, ">= 0");
        require(gamma >= MIN_GAMMA && gamma <= MAX_GAMMA, "gamma", gamma, "(0, 1]");
        require(confidence >= MIN_CONFIDENCE && confidence <= MAX_CONFIDENCE, "confidence", confidence, "[0, 1]");
    }

    public static BalanceSettings defaults() {
        return new BalanceSettings(DEFAULT_S_GREEDY, DEFAULT_R_MAX, DEFAULT_HORIZON, DEFAULT_ALPHA,
                DEFAULT_BETA, DEFAULT_GAMMA, DEFAULT_CONFIDENCE);
    }

    /** S_greedy for a cluster of G workers. */
    public int sGreedyFor(int workers) {
        return sGreedy == 0 ? workers : sGreedy;
    }

    public BalanceSettings withHorizon(int h, double a, double b, double g) {
        return new BalanceSettings(sGreedy, rMax, h, a, b, g, confidence);
    }

    private static void require(boolean ok, String field, Object value, String range) {
        if (!ok) {
            throw new IllegalArgumentException(field + " must be " + range + ", got " + value);
        }
    }
}
