package org.balanceroute.benchmarks;

/** The outcome of one request; times from {@link System#nanoTime()}. */
record Outcome(long startNanos, long firstTokenNanos, long endNanos, int tokens, String error) {
    static Outcome failed(long start, String error) {
        return new Outcome(start, -1, System.nanoTime(), 0, error);
    }
}
