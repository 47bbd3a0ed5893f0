package org.balanceroute.policy.balance;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

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
 * @param stage1Worker which worker Stage 1 fills next ({@link Stage1Worker})
 * @param horizonMargin which margin over the horizon orders workers in BR-H ({@link HorizonMargin})
 * @param projectedSlots BR-H: k, also admit against the slots of running requests the predictor
 *     says end within the next k steps (the request waits in the worker's queue for its slot);
 *     0 = off (only free slots, the paper's); at most H counts (0..1000)
 */
public record BalanceSettings(int sGreedy, int rMax, int horizon, double alpha, double beta,
        double gamma, double confidence, Stage1Worker stage1Worker, HorizonMargin horizonMargin,
        int projectedSlots) {

    /**
     * Which worker Stage 1 fills next. {@code slots}: the paper's, the worker with the most free
     * slots (ties: the larger margin); with B free slots on every worker it balances request
     * counts, not tokens. {@code margin}: the worker with the largest margin (the lightest; ties:
     * more free slots) among those with a free slot.
     */
    public enum Stage1Worker {
        SLOTS, MARGIN;

        /** The configuration value: the name in lower case. */
        public String value() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** @throws IllegalArgumentException naming the field and the values */
        public static Stage1Worker parse(String value) {
            return option(Stage1Worker.class, BalanceProperties.STAGE1_WORKER, value);
        }
    }

    /**
     * The margin that orders workers under BR-H, from the projected margins m_{g,h}, h = 0..H.
     * {@code min}: the smallest (the step where the worker is closest to the barrier; the
     * spec's min_h m_{g,h}). {@code mean}: the gamma-discounted mean. {@code now}: m_{g,0}, the
     * current margin, as BR-0. BR-0 has one margin and ignores this.
     */
    public enum HorizonMargin {
        MIN, MEAN, NOW;

        /** The configuration value: the name in lower case. */
        public String value() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** @throws IllegalArgumentException naming the field and the values */
        public static HorizonMargin parse(String value) {
            return option(HorizonMargin.class, BalanceProperties.HORIZON_MARGIN, value);
        }
    }

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
     * Chosen by the load sweep (benchmarks/sweeps/variants.py, docs/results.md): over both traces, G = 4,
     * 8, 16 and loads 0.6 to 1.2, {@code margin} with {@code mean} lowers every BR policy's
     * steady-state imbalance (br0 by 1.35x, brh-survival by 1.40x on the geometric mean) at the
     * same throughput. The paper's rule is {@code slots} with {@code min}.
     */
    public static final String DEFAULT_STAGE1_WORKER = "margin";
    public static final String DEFAULT_HORIZON_MARGIN = "mean";
    public static final int DEFAULT_PROJECTED_SLOTS = 0;
    public static final int MIN_PROJECTED_SLOTS = 0;
    public static final int MAX_PROJECTED_SLOTS = MAX_HORIZON;

    /**
     * The bounds are inclusive and are these constants, which the metatype of the BR
     * configuration ({@code org.balanceroute.policy.balance}) carries as its min and max, so the
     * admin API validates against exactly what is checked here. Numbers must also be finite.
     */
    public BalanceSettings {
        require(sGreedy >= MIN_S_GREEDY, BalanceProperties.S_GREEDY, sGreedy, ">= " + MIN_S_GREEDY + " (0 means G)");
        require(rMax >= MIN_R_MAX && rMax <= MAX_R_MAX, BalanceProperties.R_MAX, rMax, MIN_R_MAX + ".." + MAX_R_MAX);
        require(horizon >= MIN_HORIZON && horizon <= MAX_HORIZON, BalanceProperties.HORIZON, horizon, MIN_HORIZON + ".." + MAX_HORIZON);
        require(alpha >= MIN_ALPHA && Double.isFinite(alpha), BalanceProperties.ALPHA, alpha, "> 0");
        require(beta >= MIN_BETA && Double.isFinite(beta), BalanceProperties.BETA, beta, ">= 0");
        require(gamma >= MIN_GAMMA && gamma <= MAX_GAMMA, BalanceProperties.GAMMA, gamma, "(0, 1]");
        require(confidence >= MIN_CONFIDENCE && confidence <= MAX_CONFIDENCE, BalanceProperties.CONFIDENCE, confidence, "[0, 1]");
        require(stage1Worker != null, BalanceProperties.STAGE1_WORKER, stage1Worker, "one of slots, margin");
        require(horizonMargin != null, BalanceProperties.HORIZON_MARGIN, horizonMargin, "one of min, mean, now");
        require(projectedSlots >= MIN_PROJECTED_SLOTS && projectedSlots <= MAX_PROJECTED_SLOTS, BalanceProperties.PROJECTED_SLOTS,
                projectedSlots, MIN_PROJECTED_SLOTS + ".." + MAX_PROJECTED_SLOTS + " (0 = off)");
    }

    /** With {@code projectedSlots} off. */
    public BalanceSettings(int sGreedy, int rMax, int horizon, double alpha, double beta, double gamma,
            double confidence, Stage1Worker stage1Worker, HorizonMargin horizonMargin) {
        this(sGreedy, rMax, horizon, alpha, beta, gamma, confidence, stage1Worker, horizonMargin,
                DEFAULT_PROJECTED_SLOTS);
    }

    /** With {@code stage1Worker} and {@code horizonMargin} at their defaults. */
    public BalanceSettings(int sGreedy, int rMax, int horizon, double alpha, double beta, double gamma,
            double confidence) {
        this(sGreedy, rMax, horizon, alpha, beta, gamma, confidence, Stage1Worker.parse(DEFAULT_STAGE1_WORKER),
                HorizonMargin.parse(DEFAULT_HORIZON_MARGIN));
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
        return new BalanceSettings(sGreedy, rMax, h, a, b, g, confidence, stage1Worker, horizonMargin,
                projectedSlots);
    }

    public BalanceSettings withOrdering(Stage1Worker worker, HorizonMargin margin) {
        return new BalanceSettings(sGreedy, rMax, horizon, alpha, beta, gamma, confidence, worker, margin,
                projectedSlots);
    }

    public BalanceSettings withProjectedSlots(int k) {
        return new BalanceSettings(sGreedy, rMax, horizon, alpha, beta, gamma, confidence, stage1Worker,
                horizonMargin, k);
    }

    /** The constant whose lower-case name is {@code value}; else an error listing them all. */
    private static <E extends Enum<E>> E option(Class<E> type, String field, String value) {
        List<String> names = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            String name = e.name().toLowerCase(Locale.ROOT);
            if (name.equals(value)) {
                return e;
            }
            names.add(name);
        }
        throw new IllegalArgumentException(field + " must be one of " + String.join(", ", names) + ", got " + value);
    }

    private static void require(boolean ok, String field, Object value, String range) {
        if (!ok) {
            throw new IllegalArgumentException(field + " must be " + range + ", got " + value);
        }
    }
}
