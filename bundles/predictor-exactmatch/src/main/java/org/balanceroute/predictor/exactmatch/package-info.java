/**
 * The exact-match termination predictor for prompt-recurrent workloads: the survival
 * classifier evaluated over the output lengths previously seen for the same prompt, falling
 * back to the global survival predictor where that history says nothing (spec section 5).
 */
@Export
@Version("0.2.0")
package org.balanceroute.predictor.exactmatch;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
