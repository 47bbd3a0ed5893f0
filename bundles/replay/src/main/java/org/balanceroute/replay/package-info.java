/**
 * The replayer ({@link org.balanceroute.replay.Replayer}, {@code ./balanceroute replay}): sends a
 * trace's requests at their arrival times to an OpenAI-compatible endpoint as streaming token-id
 * completions and measures TTFT, TPOT and tokens. The demo that drives it ({@code ./balanceroute
 * demo}) and both command lines are in the CLI module.
 */
@Export
@Version("0.2.0")
package org.balanceroute.replay;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
