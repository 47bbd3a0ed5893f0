package org.balanceroute.api;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A binary termination classifier with a timing hint: does a running request end within the
 * next H decode steps, and if so, about when. It learns from finished requests through
 * {@link CompletionListener}.
 *
 * <p>The confidence gate is part of the contract: when the classifier's probability of ending
 * within H is below {@code confidence}, it must answer {@link #SURVIVES} (the conservative
 * anchor), so gains come only from requests it is sure about.
 */
@ConsumerType
public interface TerminationPredictor extends CompletionListener {

    /** Service property carrying the predictor name, e.g. {@code survival}. */
    String NAME_PROPERTY = "balanceroute.predictor";

    /** Answer for "assumed to run past the horizon". */
    int SURVIVES = 0;

    String name();

    /**
     * @param request a running request
     * @param horizon H >= 1
     * @param confidence the gate, in [0, 1]
     * @return c_i in [1, H]: the request is expected to be active for exactly c_i more decode
     *     steps (the current one included); or {@link #SURVIVES}
     */
    int predictEnd(RequestView request, int horizon, double confidence);
}
