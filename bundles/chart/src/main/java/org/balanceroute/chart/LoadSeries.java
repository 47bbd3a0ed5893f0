package org.balanceroute.chart;

/**
 * Per-worker KV loads sampled over decode steps: sample i was taken at decode step
 * {@link #step(int)}, in increasing order, and holds one load per worker.
 */
public interface LoadSeries {

    /** G, the workers (lines of the chart). */
    int workers();

    /** How many samples there are. */
    int samples();

    /** The decode step of sample i, 0 &lt;= i &lt; {@link #samples()}. */
    long step(int sample);

    /** Worker g's KV load (tokens) at sample i. */
    long load(int sample, int worker);
}
