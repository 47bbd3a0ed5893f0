package org.balanceroute.router;

import java.util.List;
import java.util.Objects;

/**
 * What one dispatch step did.
 *
 * @param step the decode step index the dispatch ran at (the first step is 0)
 * @param policy the name of the policy that dispatched ({@link RouterService#NO_POLICY} if none
 *     was available)
 * @param placements the requests that left the prompt pool in this step, sorted by worker,
 *     then request id
 * @param poolDepth requests still waiting in the prompt pool after the step
 */
public record StepResult(long step, String policy, List<Placement> placements, int poolDepth) {

    public StepResult {
        Objects.requireNonNull(policy, "policy");
        placements = List.copyOf(placements);
    }
}
