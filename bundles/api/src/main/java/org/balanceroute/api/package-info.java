/**
 * The BalanceRoute model and SPIs: a read-only view of a pool's DP decode workers, the routing
 * policy SPI (per-step batch dispatch over the prompt pool, and per-request routing at
 * arrival), the termination predictor SPI and the snapshot store SPI, and the swappable-delegate
 * base their components share ({@link org.balanceroute.api.Swappable}).
 *
 * <p>Threading contract: one dispatch loop owns the pool state and is its only writer.
 * Policies and predictors are called from that loop only, one call at a time, and the views
 * they are handed are valid for the duration of that call only.
 */
@Export
@Version("2.1.0")
package org.balanceroute.api;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
