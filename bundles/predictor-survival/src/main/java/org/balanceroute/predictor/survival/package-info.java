/**
 * The survival termination predictor: an online empirical distribution of output lengths and
 * the confidence-gated "ends within H steps?" classifier built on it (spec section 5).
 * {@link org.balanceroute.predictor.survival.OutputLengthDistribution#endWithin} is shared with
 * predictors that fall back to it.
 */
@Export
@Version("0.2.0")
package org.balanceroute.predictor.survival;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
