/**
 * The trace-driven DP decode simulator: G workers step together at a barrier, each step lasting
 * a * max_g L_g + b (+ c * the largest batch); with several decode instances
 * ({@link org.balanceroute.simulator.SimulationConfig#layout}) each instance's ranks at their own,
 * on their own clock. Driven through the same
 * {@link org.balanceroute.core.Router} and policies as the live proxy, so what it measures is
 * what production runs. With several proxy replicas ({@link org.balanceroute.simulator.ProxyReplicas})
 * the engine and the routers' views part, and the metrics are the engine's.
 */
@Export
@Version("1.1.0")
package org.balanceroute.simulator;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
