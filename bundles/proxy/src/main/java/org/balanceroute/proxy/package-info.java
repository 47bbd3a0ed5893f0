/**
 * Hooks of the OpenAI-compatible proxy for observers such as the metrics bundle:
 * {@link org.balanceroute.proxy.ProxyObserver}, a whiteboard service the proxy tells about each
 * request's time to first token, time per output token, output tokens and outcome.
 */
@Export
@Version("0.2.0")
package org.balanceroute.proxy;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
