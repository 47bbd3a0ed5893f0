package org.balanceroute.policy.baseline;

import org.balanceroute.api.ClusterView;
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
    public int route(ClusterView cluster, RequestView request) {
        return argMin(cluster, cluster::outstanding);
    }
}
