/**
 * The OpenAI / vLLM wire format, where the proxy and the simulated engine read it the same way:
 * a prompt of token ids, scanned from the request's bytes without building a JSON token per id.
 * Stateless; every method may be called from any thread.
 */
@Export
@Version("0.1.0")
package org.balanceroute.wire;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
