package org.balanceroute.benchmarks;

/**
 * What a process holds: its threads, open file descriptors, resident memory and (a JVM) live
 * heap after a full collection, -1 where not known; {@code openStreams}: the client's requests
 * in flight when it was read.
 */
record Held(int threads, int openFds, long rssBytes, long heapAfterGcBytes, int openStreams) {

    /** The process's figures now, with a full collection first when {@code heap} (and it is a JVM). */
    static Held of(long pid, int clockTicks, boolean heap, int openStreams) {
        long heapBytes = heap ? LiveHeap.heapAfterFullGc(pid) : -1;
        ProcSample p = ProcSample.read(pid, clockTicks);
        return p == null ? new Held(-1, -1, -1, heapBytes, openStreams)
                : new Held(p.threads(), p.openFds(), p.rssBytes(), heapBytes, openStreams);
    }
}
