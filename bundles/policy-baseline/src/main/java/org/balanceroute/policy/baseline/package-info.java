/**
 * The classic decode routing rules, for side-by-side runs against BR-0 / BR-H. Each routes a
 * request on arrival; a full worker queues it FCFS, as vLLM's own scheduler does. None of them
 * knows about the barrier: they balance counts or sizes, not the heaviest worker's KV load.
 */
@Export
@Version("1.0.0")
package org.balanceroute.policy.baseline;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
