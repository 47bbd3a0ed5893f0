/**
 * The single-writer routing core shared by every driver (the trace simulator and the live
 * proxy): the pool state ({@link org.balanceroute.core.PoolState}), the prompt pool and the
 * {@link org.balanceroute.core.Router} that applies a {@link org.balanceroute.api.RoutingPolicy} once per decode step.
 *
 * <p>Nothing here is thread-safe, on purpose: one dispatch loop owns these objects and is the
 * only thread that touches them, so the hot path takes no locks.
 */
@Export
@Version("1.0.0")
package org.balanceroute.core;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
