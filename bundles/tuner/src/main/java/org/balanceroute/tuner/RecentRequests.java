package org.balanceroute.tuner;

import java.util.ArrayList;
import java.util.List;
import org.balanceroute.api.CompletionListener;
import org.balanceroute.api.RequestView;
import org.balanceroute.trace.TraceRequest;

/**
 * The rolling record of recent requests the tuner replays: for each request that finished, its
 * arrival (router clock), prompt tokens, output tokens and prompt identity, the last
 * {@code capacity} of them in a ring of primitive arrays.
 *
 * <p><b>Threading.</b> One writer, the router's dispatch thread ({@link #onCompleted}: O(1), no
 * allocation, no lock); any number of readers ({@link #window}), which copy what they need and
 * retry if the writer lapped them while they copied. Entries are published by a volatile count
 * written after the entry; a reader leaves out the oldest slot, the one the next write reuses,
 * so it holds {@code capacity - 1} at the most.
 */
public final class RecentRequests implements CompletionListener {

    private final int capacity;
    private final long[] arrivalNanos;
    private final int[] promptTokens;
    private final int[] outputTokens;
    private final long[] promptKey;
    private volatile long count;

    public RecentRequests(int capacity) {
        if (capacity < 2) {
            throw new IllegalArgumentException("capacity must be >= 2, got " + capacity);
        }
        this.capacity = capacity;
        arrivalNanos = new long[capacity];
        promptTokens = new int[capacity];
        outputTokens = new int[capacity];
        promptKey = new long[capacity];
    }

    public int capacity() {
        return capacity;
    }

    /** Requests recorded since the start (not only those still held). */
    public long recorded() {
        return count;
    }

    @Override
    public void onCompleted(RequestView request, int outputs) {
        long c = count;
        int i = (int) (c % capacity);
        arrivalNanos[i] = request.arrivalNanos();
        promptTokens[i] = request.promptTokens();
        outputTokens[i] = Math.max(1, outputs);
        promptKey[i] = request.promptKey();
        count = c + 1; // publishes the entry
    }

    /**
     * The requests that arrived in the last {@code windowNanos} before the newest arrival, by
     * arrival, as a trace: arrivals in seconds from the first of them.
     */
    public List<TraceRequest> window(long windowNanos) {
        while (true) {
            long end = count;
            long start = Math.max(0, end - (capacity - 1)); // not the slot a write in progress reuses
            int n = (int) (end - start);
            long[] a = new long[n];
            int[] p = new int[n];
            int[] o = new int[n];
            long[] k = new long[n];
            for (int j = 0; j < n; j++) {
                int i = (int) ((start + j) % capacity);
                a[j] = arrivalNanos[i];
                p[j] = promptTokens[i];
                o[j] = outputTokens[i];
                k[j] = promptKey[i];
            }
            // entries [start, end) were not overwritten while copying if no write reached start + capacity
            if (count >= start + capacity) {
                continue;
            }
            return trace(a, p, o, k, windowNanos);
        }
    }

    private static List<TraceRequest> trace(long[] a, int[] p, int[] o, long[] k, long windowNanos) {
        Integer[] order = new Integer[a.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, (x, y) -> Long.compare(a[x], a[y]));
        List<TraceRequest> out = new ArrayList<>();
        if (order.length == 0) {
            return out;
        }
        long newest = a[order[order.length - 1]];
        long from = windowNanos <= 0 ? Long.MIN_VALUE : newest - windowNanos;
        long first = Long.MIN_VALUE;
        for (Integer i : order) {
            if (a[i] < from) {
                continue;
            }
            if (first == Long.MIN_VALUE) {
                first = a[i];
            }
            out.add(new TraceRequest((a[i] - first) / 1e9, p[i], o[i], k[i]));
        }
        return out;
    }
}
