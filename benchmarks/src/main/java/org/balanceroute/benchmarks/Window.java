package org.balanceroute.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one run's streams share: the window, its counters and the flag that stops them. The
 * run's thread opens and closes the window ({@link #openNow()}, {@link #closeNow()}) right
 * where it reads /proc, so tokens and CPU are counted over the same span even when that
 * thread wakes late on a busy machine.
 */
final class Window {
    volatile long start;
    volatile long end;
    final LongAdder tokens = new LongAdder();
    final LongAdder requests = new LongAdder();
    final LongAdder errors = new LongAdder();
    final List<Long> e2e = new ArrayList<>();
    /** Requests sent and not ended. */
    final AtomicInteger open = new AtomicInteger();
    volatile String firstError;
    /** Set after the window (and the probes after it): no stream sends another request. */
    volatile boolean stopped;

    Window(long start, long end) {
        this.start = start;
        this.end = end;
    }

    /** A window not open yet: nothing is inside until {@link #openNow()}. */
    static Window closed() {
        return new Window(Long.MAX_VALUE, Long.MAX_VALUE);
    }

    void openNow() {
        start = System.nanoTime();
    }

    void closeNow() {
        end = System.nanoTime();
    }

    double seconds() {
        return (end - start) / 1e9;
    }

    boolean inside(long t) {
        return t >= start && t < end;
    }
}
