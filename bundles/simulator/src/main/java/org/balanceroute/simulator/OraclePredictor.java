package org.balanceroute.simulator;

import java.util.function.LongToIntFunction;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.TerminationPredictor;

/**
 * Knows every request's true output length: the upper bound for BR-H. Simulator only; no
 * production system has it.
 */
public final class OraclePredictor implements TerminationPredictor {

    public static final String NAME = "oracle";

    private final LongToIntFunction outputLengthById;

    /** @param outputLengthById o_i for a request id */
    public OraclePredictor(LongToIntFunction outputLengthById) {
        this.outputLengthById = outputLengthById;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int predictEnd(RequestView request, int horizon, double confidence) {
        int left = outputLengthById.applyAsInt(request.id()) - request.decodedTokens();
        return left >= 1 && left <= horizon ? left : SURVIVES;
    }

    @Override
    public void onCompleted(RequestView request, int outputTokens) {
        // knows everything already
    }
}
