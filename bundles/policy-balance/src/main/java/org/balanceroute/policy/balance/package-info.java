/**
 * BR-0 and BR-H, the barrier-aware policies of "Tackling the Data-Parallel Load Balancing
 * Bottleneck in LLM Serving: Practical Online Routing at Scale" (arXiv 2605.06113).
 *
 * <p>In DP decode every step ends at a barrier, so the step lasts as long as the heaviest
 * worker: T(k) ~ a * max_g L_g(k) + b. The policies score a candidate set of waiting requests
 * for a worker by how much it reduces the total imbalance I(k) = G*M(k) - sum_g L_g(k)
 * ({@link org.balanceroute.policy.balance.FScore}), optionally looking H steps ahead with a
 * termination predictor ({@link org.balanceroute.policy.balance.HorizonScore}), and place them
 * with the {@link org.balanceroute.policy.balance.TwoStageDispatcher} once per decode step.
 */
@Export
@Version("1.1.0")
package org.balanceroute.policy.balance;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
