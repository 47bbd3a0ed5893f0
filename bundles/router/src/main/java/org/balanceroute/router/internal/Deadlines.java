package org.balanceroute.router.internal;

import java.util.concurrent.TimeUnit;

/** Deadlines on the monotonic clock: compared by difference only, since the clock may be negative. */
final class Deadlines {

    private Deadlines() {
    }

    static long until(long now, long deadline) {
        return Math.max(0, deadline - now);
    }

    static long millis(long ms) {
        return TimeUnit.MILLISECONDS.toNanos(ms);
    }

    static boolean due(long now, long deadline) {
        return now - deadline >= 0;
    }
}
