/**
 * The trace-driven DP decode simulator: G workers step together at a barrier, each step lasting
 * a * max_g L_g + b (+ c * the largest batch), driven through the same
 * {@link org.balanceroute.core.Router} and policies as the live proxy, so what it measures is
 * what production runs.
 */
@Export
@Version("0.1.0")
package org.balanceroute.simulator;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
