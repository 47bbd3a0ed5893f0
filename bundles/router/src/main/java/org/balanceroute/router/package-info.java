/**
 * The router service: the single dispatch loop that owns the routing core (cluster state,
 * prompt pool, active policy), as other bundles (the admin API, the future proxy, tests) drive
 * and observe it.
 *
 * <p>Threading contract: every method of {@link org.balanceroute.router.RouterService} may be
 * called from any thread. Calls that change state are enqueued and applied, in call order, by
 * the one dispatch thread, which is the only thread that touches the core objects; results come
 * back through {@link java.util.concurrent.CompletableFuture}s completed on that thread.
 */
@Export
@Version("1.2.0")
package org.balanceroute.router;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
