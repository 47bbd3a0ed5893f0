package org.balanceroute.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The built-in seeded workload: a {@link Trace} whose prompt lengths, output lengths and
 * arrivals resemble the Mooncake conversation trace (12,031 requests, FAST'25 release), for the
 * demo, the replayer and tests when no trace file is at hand. The same seed, rate and count give
 * the same trace, request for request.
 *
 * <ul>
 *   <li><b>Prompt length</b>: lognormal with median 6,900 tokens ({@code mu = ln 6900}) and
 *       {@code sigma = 1.052}, so mean ~12,000 and p95 ~39,000 (the trace: median 6,909, mean
 *       12,035, p95 39,549), rounded and clipped to [16, 131072].</li>
 *   <li><b>Output length</b>: the trace's own quantiles, drawn by a piecewise-linear inverse CDF
 *       through (p, tokens) = (0, 1), (0.01, 3), (0.05, 10), (0.10, 24), (0.25, 156), (0.50, 350),
 *       (0.75, 472), (0.90, 597), (0.95, 698), (0.99, 1115), (1, 2000): mean ~345, median 350,
 *       p95 ~698, at least 1 (the trace: mean 343, median 350, p95 698). The trace's short
 *       answers (a tenth under 24 tokens) are kept, which a single lognormal would lose.</li>
 *   <li><b>Arrivals</b>: a Poisson process at {@code ratePerSecond}: exponential gaps, the first
 *       request at 0 (the trace averages 3.4 requests/s).</li>
 *   <li><b>Prompt identity</b>: conversations. With probability {@link #CONTINUE_PROBABILITY}
 *       a request continues one of the {@link #OPEN_CONVERSATIONS} most recently opened
 *       conversations (uniformly), otherwise it opens a new one; the prompt key is a hash of the
 *       seed and the conversation number, never {@link TraceRequest#NO_PROMPT_KEY}. Keys recur
 *       as in the trace, where about half the requests share their first 4 hash blocks with
 *       another.</li>
 * </ul>
 *
 * Lengths and keys are independent of each other. The draws come from one {@link
 * SplittableRandom} per trace, in a fixed order, so nothing depends on a clock.
 */
public final class WorkloadGenerator {

    /** Median prompt length in tokens. */
    public static final double PROMPT_MEDIAN = 6900;
    /** The lognormal's sigma: {@code sqrt(2 ln(12000 / 6900))}. */
    public static final double PROMPT_SIGMA = 1.052;
    /** Shortest and longest prompt. */
    public static final int MIN_PROMPT = 16;
    public static final int MAX_PROMPT = 131072;
    /** Chance that a request continues a recent conversation rather than opening one. */
    public static final double CONTINUE_PROBABILITY = 0.28;
    /** Recently opened conversations a continuing request picks from. */
    public static final int OPEN_CONVERSATIONS = 256;
    /** The Mooncake conversation trace's mean arrival rate, requests per second. */
    public static final double MOONCAKE_RATE = 3.4;

    private static final double[] OUTPUT_P = {0, 0.01, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99, 1};
    private static final double[] OUTPUT_TOKENS = {1, 3, 10, 24, 156, 350, 472, 597, 698, 1115, 2000};

    private final long seed;
    private final double ratePerSecond;

    /**
     * @param seed the seed of every draw
     * @param ratePerSecond mean arrivals per second (> 0, finite)
     */
    public WorkloadGenerator(long seed, double ratePerSecond) {
        if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
            throw new IllegalArgumentException("ratePerSecond must be finite and > 0, got " + ratePerSecond);
        }
        this.seed = seed;
        this.ratePerSecond = ratePerSecond;
    }

    /** A trace of {@code n} requests (n >= 0), source {@code generator(seed=S, rate=R)}, format PLAIN. */
    public Trace generate(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n must be >= 0, got " + n);
        }
        SplittableRandom random = new SplittableRandom(seed);
        double mu = Math.log(PROMPT_MEDIAN);
        List<TraceRequest> requests = new ArrayList<>(n);
        double t = 0;
        long conversations = 0;
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                t += -Math.log(1 - random.nextDouble()) / ratePerSecond;
            }
            double prompt = Math.exp(mu + PROMPT_SIGMA * gaussian(random));
            int input = (int) Math.max(MIN_PROMPT, Math.min(MAX_PROMPT, Math.round(prompt)));
            int output = outputTokens(random.nextDouble());
            long conversation;
            if (conversations > 0 && random.nextDouble() < CONTINUE_PROBABILITY) {
                long open = Math.min(conversations, OPEN_CONVERSATIONS);
                conversation = conversations - 1 - random.nextLong(open);
            } else {
                conversation = conversations++;
            }
            requests.add(new TraceRequest(t, input, output, promptKey(conversation)));
        }
        return new Trace(String.format(Locale.ROOT, "generator(seed=%d, rate=%s)", seed, ratePerSecond),
                TraceFormat.PLAIN, requests);
    }

    /** The output length at quantile {@code u} in [0, 1): linear between the knots, at least 1. */
    static int outputTokens(double u) {
        int k = 1;
        while (k < OUTPUT_P.length - 1 && u >= OUTPUT_P[k]) {
            k++;
        }
        double span = OUTPUT_P[k] - OUTPUT_P[k - 1];
        double x = OUTPUT_TOKENS[k - 1] + (u - OUTPUT_P[k - 1]) / span * (OUTPUT_TOKENS[k] - OUTPUT_TOKENS[k - 1]);
        return (int) Math.max(1, Math.round(x));
    }

    private long promptKey(long conversation) {
        long z = seed * 0x9E3779B97F4A7C15L + conversation + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return z == TraceRequest.NO_PROMPT_KEY ? 1 : z;
    }

    /** A standard normal draw (Box-Muller, one of the pair). */
    private static double gaussian(SplittableRandom random) {
        double u1 = 1 - random.nextDouble(); // (0, 1]
        double u2 = random.nextDouble();
        return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }
}
