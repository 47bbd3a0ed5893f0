/**
 * Request traces for the simulator, the replayer, tests and benchmarks: the {@link
 * org.balanceroute.trace.TraceLoader} reads the Azure LLM inference CSV, the Mooncake JSON
 * lines and a plain CSV format into an immutable {@link org.balanceroute.trace.Trace} of
 * {@link org.balanceroute.trace.TraceRequest}s with arrivals in seconds from the first
 * request.
 *
 * <p>Loading is all-or-nothing: a file either parses completely or the loader throws a
 * {@link org.balanceroute.trace.TraceFormatException} naming the file, line and field.
 */
@Export
@Version("0.1.0")
package org.balanceroute.trace;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
