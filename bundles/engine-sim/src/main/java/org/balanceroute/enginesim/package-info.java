/**
 * A simulated vLLM data-parallel cluster on localhost: P prefill servers and G decode DP ranks
 * that speak vLLM's OpenAI-compatible engine contract (docs/vllm-contract.md) over real
 * HTTP, and step the whole decode tier at a barrier, a step lasting
 * {@code (a * max_g L_g + b + c * max_g |A_g|) * timeFactor} seconds.
 *
 * <p>{@link org.balanceroute.enginesim.SimCluster} starts and stops a cluster (in-process, for
 * tests, and behind {@code ./balanceroute sim-cluster}, whose command line is in the CLI module);
 * {@link org.balanceroute.enginesim.SimConfig} holds its settings.
 */
@Export
@Version("0.2.0")
package org.balanceroute.enginesim;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
