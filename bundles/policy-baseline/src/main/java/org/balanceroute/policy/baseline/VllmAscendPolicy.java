package org.balanceroute.policy.baseline;

import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;

/**
 * The rule of vllm-ascend's load-balance proxy (examples/disaggregated_prefill_v1): the decoder
 * with the least sum of in-flight request sizes, where a request's size is the byte length of
 * the client's JSON body, added when it is picked and removed when it finishes. It never learns
 * from the token stream, so long outputs are invisible to it. Cost O(G).
 */
public final class VllmAscendPolicy extends ArrivalPolicy {

    public static final String NAME = "vllm-ascend";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int route(PoolView view, RequestView request) {
        return argMin(view, view::inFlightBytes);
    }
}
