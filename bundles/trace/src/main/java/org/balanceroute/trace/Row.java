package org.balanceroute.trace;

/**
 * One parsed line, before sorting and cutting. Unlike a {@link TraceRequest}, its arrival
 * may be negative (an Azure row earlier than the first row of an unsorted file).
 */
record Row(double arrivalSeconds, int inputTokens, int outputTokens, long promptKey) {
}
