package org.balanceroute.simulator;

import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongToIntFunction;
import org.balanceroute.api.CompletionListener;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.policy.balance.Br0BypassPolicy;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.baseline.JoinShortestQueuePolicy;
import org.balanceroute.policy.baseline.LeastTokensPolicy;
import org.balanceroute.policy.baseline.PowerOfTwoChoicesPolicy;
import org.balanceroute.policy.baseline.RandomPolicy;
import org.balanceroute.policy.baseline.RoundRobinPolicy;
import org.balanceroute.policy.baseline.VllmAscendPolicy;
import org.balanceroute.predictor.exactmatch.ExactMatchPredictor;
import org.balanceroute.predictor.exactmatch.ExactMatchSettings;
import org.balanceroute.predictor.survival.SurvivalPredictor;
import org.balanceroute.predictor.survival.SurvivalSettings;
import org.balanceroute.trace.TraceRequest;

/**
 * Every policy the simulator can run, by the name operators use, each built fresh for one run.
 *
 * <p>The simulator builds the shipped policies in plain Java, without OSGi, so this switch is
 * their wiring here, as the DS components are in the runtime: which class, which seed, which
 * predictor (warm-started or the oracle). It holds no schema: names are the policy classes'
 * constants, and the tunables arrive as {@link BalanceSettings} (whose bounds are the metatype's,
 * see {@code BalanceConfig}) and a seed. A policy bundle dropped into a runtime is not here: the
 * simulator runs what it was built with.
 */
public final class PolicyCatalog {

    /** All names, baselines first, in report order. */
    public static final List<String> NAMES = List.of(
            RandomPolicy.NAME, RoundRobinPolicy.NAME, PowerOfTwoChoicesPolicy.NAME, JoinShortestQueuePolicy.NAME,
            LeastTokensPolicy.NAME, VllmAscendPolicy.NAME, BalancePolicy.BR0, Br0BypassPolicy.NAME,
            BalancePolicy.BRH_SURVIVAL, BalancePolicy.BRH_EXACT, BalancePolicy.BRH_ORACLE);

    /**
     * Comparison rules of the simulator alone, not shipped to the runtime, run only when named:
     * {@code jsq-br0} (JSQ across decode instances, BR-0 within one: {@link JsqThenBr0Policy}).
     */
    public static final List<String> SIMULATOR_ONLY = List.of(JsqThenBr0Policy.NAME);

    /** A policy and the predictors that must learn from completions while it runs. */
    public record Setup(RoutingPolicy policy, List<CompletionListener> learners) {
    }

    private PolicyCatalog() {
    }

    /** A policy whose predictors start cold. */
    public static Setup create(String name, long seed, BalanceSettings balance, LongToIntFunction outputLengthById) {
        return create(name, seed, balance, outputLengthById, List.of());
    }

    /**
     * @param outputLengthById the true output length of a request id, for the oracle only
     * @param warmStart finished requests the survival and exact-match predictors learn from
     *     before the run (e.g. yesterday's trace); empty for a cold start
     * @throws IllegalArgumentException for an unknown name, listing the known ones
     */
    public static Setup create(String name, long seed, BalanceSettings balance, LongToIntFunction outputLengthById,
            List<TraceRequest> warmStart) {
        return create(name, seed, balance, SurvivalSettings.defaults(), outputLengthById, warmStart);
    }

    /**
     * As above, with the survival and exact-match predictors' survival settings (exact-match's
     * fallback, and the quantile of both).
     */
    public static Setup create(String name, long seed, BalanceSettings balance, SurvivalSettings predictor,
            LongToIntFunction outputLengthById, List<TraceRequest> warmStart) {
        return switch (name) {
            case RandomPolicy.NAME -> plain(new RandomPolicy(new SplittableRandom(seed)));
            case RoundRobinPolicy.NAME -> plain(new RoundRobinPolicy());
            case PowerOfTwoChoicesPolicy.NAME -> plain(new PowerOfTwoChoicesPolicy(new SplittableRandom(seed)));
            case JoinShortestQueuePolicy.NAME -> plain(new JoinShortestQueuePolicy());
            case LeastTokensPolicy.NAME -> plain(new LeastTokensPolicy());
            case VllmAscendPolicy.NAME -> plain(new VllmAscendPolicy());
            case BalancePolicy.BR0 -> plain(BalancePolicy.br0(balance));
            case Br0BypassPolicy.NAME -> plain(new Br0BypassPolicy());
            case JsqThenBr0Policy.NAME -> plain(new JsqThenBr0Policy(balance));
            case BalancePolicy.BRH_SURVIVAL, BalancePolicy.BRH_EXACT, BalancePolicy.BRH_ORACLE -> horizon(
                    name.substring(BalancePolicy.BRH_PREFIX.length()), balance,
                    predictor(name, predictor, outputLengthById, warmStart));
            default -> throw new IllegalArgumentException("unknown policy '" + name + "'; known: "
                    + String.join(", ", NAMES) + ", " + String.join(", ", SIMULATOR_ONLY));
        };
    }

    /**
     * The termination predictor of BR-H policy {@code name} (brh-survival, brh-exact, brh-oracle),
     * warm-started.
     *
     * @throws IllegalArgumentException for any other name
     */
    public static TerminationPredictor predictor(String name, SurvivalSettings settings,
            LongToIntFunction outputLengthById, List<TraceRequest> warmStart) {
        int[] lengths = warmStart.stream().mapToInt(TraceRequest::outputTokens).toArray();
        return switch (name) {
            case BalancePolicy.BRH_SURVIVAL -> {
                SurvivalPredictor survival = new SurvivalPredictor(settings);
                survival.warmStart(lengths);
                yield survival;
            }
            case BalancePolicy.BRH_EXACT -> {
                ExactMatchPredictor exact = new ExactMatchPredictor(ExactMatchSettings.defaults(), settings);
                exact.warmStart(warmStart.stream().mapToLong(TraceRequest::promptKey).toArray(), lengths);
                yield exact;
            }
            case BalancePolicy.BRH_ORACLE -> new OraclePredictor(outputLengthById);
            default -> throw new IllegalArgumentException("'" + name + "' is not a BR-H policy with a predictor");
        };
    }

    private static Setup plain(RoutingPolicy policy) {
        return new Setup(policy, List.of());
    }

    private static Setup horizon(String label, BalanceSettings balance, TerminationPredictor predictor) {
        return new Setup(BalancePolicy.brh(label, balance, predictor), List.of(predictor));
    }
}
