package org.balanceroute.policy.baseline;

import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;

/**
 * Join the shortest queue: fewest outstanding requests (running + queued). The vllm-ascend
 * proxy's documented default and the paper's main baseline. Cost O(G).
 */
public final class JoinShortestQueuePolicy extends ArrivalPolicy {

    public static final String NAME = "jsq";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int route(PoolView view, RequestView request) {
        return argMin(view, view::outstanding);
    }
}
