/**
 * The replayer ({@link org.balanceroute.replay.Replayer}, {@code ./balanceroute replay}): sends a
 * trace's requests at their arrival times to an OpenAI-compatible endpoint as streaming token-id
 * completions and measures TTFT, TPOT and tokens; and the demo ({@link
 * org.balanceroute.replay.Demo}, {@code ./balanceroute demo}) that compares routing policies
 * through the proxy on the simulated cluster, measured by the engine's ground truth.
 */
@Export
@Version("0.1.0")
package org.balanceroute.replay;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
