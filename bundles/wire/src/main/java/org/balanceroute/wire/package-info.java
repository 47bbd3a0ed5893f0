/**
 * The OpenAI / vLLM wire format, where the proxy, its admin API and the simulated engine read or
 * write it the same way: a prompt of token ids, scanned from the request's bytes without building
 * a JSON token per id, and the OpenAI error body.
 * Stateless; every method may be called from any thread.
 */
@Export
@Version("0.2.0")
package org.balanceroute.wire;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
