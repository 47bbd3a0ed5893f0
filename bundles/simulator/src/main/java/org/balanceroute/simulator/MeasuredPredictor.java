package org.balanceroute.simulator;

import java.util.List;
import java.util.function.LongToIntFunction;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.predictor.survival.SurvivalSettings;
import org.balanceroute.trace.TraceRequest;

/**
 * A termination predictor that answers as the one it wraps and scores every answer against the
 * request's true remaining steps ({@link PredictionAccuracy}): what BR-H is told, on the requests
 * and steps at which it asks. Simulator only (it needs the true output lengths).
 */
public final class MeasuredPredictor implements TerminationPredictor {

    private final TerminationPredictor predictor;
    private final LongToIntFunction outputLengthById;
    private final PredictionAccuracy accuracy;

    public MeasuredPredictor(TerminationPredictor predictor, LongToIntFunction outputLengthById, int horizon) {
        this.predictor = predictor;
        this.outputLengthById = outputLengthById;
        this.accuracy = new PredictionAccuracy(horizon);
    }

    /**
     * Runs BR-H policy {@code policy} (brh-survival, brh-exact or brh-oracle) on the requests
     * with its predictor measured, one proxy.
     *
     * @param warmStart finished requests the predictor learns first, as {@link PolicyCatalog#create}
     */
    public static PredictionAccuracy measure(String policy, List<TraceRequest> requests, List<TraceRequest> warmStart,
            SimulationConfig config, BalanceSettings balance, SurvivalSettings predictorSettings) {
        LongToIntFunction lengths = id -> requests.get((int) id).outputTokens();
        MeasuredPredictor measured = new MeasuredPredictor(
                PolicyCatalog.predictor(policy, predictorSettings, lengths, warmStart), lengths, balance.horizon());
        RoutingPolicy brh = BalancePolicy.brh(policy.substring(BalancePolicy.BRH_PREFIX.length()), balance, measured);
        new DecodeSimulator(config).run(requests, brh, List.of(measured), StepObserver.NONE, n -> { });
        return measured.accuracy;
    }

    public PredictionAccuracy accuracy() {
        return accuracy;
    }

    @Override
    public String name() {
        return predictor.name();
    }

    @Override
    public int predictEnd(RequestView request, int horizon, double confidence) {
        int c = predictor.predictEnd(request, horizon, confidence);
        accuracy.add(c, outputLengthById.applyAsInt(request.id()) - request.decodedTokens());
        return c;
    }

    @Override
    public void onCompleted(RequestView request, int outputTokens) {
        predictor.onCompleted(request, outputTokens);
    }
}
