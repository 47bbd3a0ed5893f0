package org.balanceroute.policy.baseline;

import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;

/**
 * Fewest outstanding KV tokens: the running requests' current KV load (fed token by token)
 * plus the prompts queued at the worker. The strongest classic baseline. Cost O(G).
 */
public final class LeastTokensPolicy extends ArrivalPolicy {

    public static final String NAME = "least-tokens";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int route(PoolView view, RequestView request) {
        return argMin(view, g -> view.load(g) + view.queuedTokens(g));
    }
}
