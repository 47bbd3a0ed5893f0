package org.balanceroute.simulator;

/**
 * The engine's decode steps as the routers hear of them: per step, the time it ended and, in the
 * engine's order, every request that got a token ({@code id}, or {@code ~id} when it was the
 * last). Each router reads it with cursors of its own, some D behind; a step is kept until every
 * cursor has passed it (a few steps: D over the step time), and its array is reused after.
 */
final class StepLog {

    private double[] time = new double[8];
    private int[][] entries = new int[8][];
    private int[] size = new int[8];
    private long head;
    private long tail;

    /** Index of the next step to be appended; cursors run up to it. */
    long tail() {
        return tail;
    }

    void append(double endTime, IntList record) {
        if (tail - head == time.length) {
            grow();
        }
        int slot = slot(tail);
        int n = record.size();
        int[] e = entries[slot];
        if (e == null || e.length < n) {
            e = entries[slot] = new int[Math.max(n, 16)];
        }
        for (int i = 0; i < n; i++) {
            e[i] = record.get(i);
        }
        time[slot] = endTime;
        size[slot] = n;
        tail++;
    }

    double time(long step) {
        return time[slot(check(step))];
    }

    int size(long step) {
        return size[slot(check(step))];
    }

    int entry(long step, int i) {
        return entries[slot(step)][i];
    }

    /** Every reader has read the steps before {@code step}. */
    void discardBefore(long step) {
        head = Math.max(head, Math.min(step, tail));
    }

    private long check(long step) {
        if (step < head || step >= tail) {
            throw new IndexOutOfBoundsException("step " + step + " not in [" + head + ", " + tail + ")");
        }
        return step;
    }

    private int slot(long step) {
        return (int) (step & (time.length - 1));
    }

    private void grow() {
        int n = time.length * 2;
        double[] t = new double[n];
        int[][] e = new int[n][];
        int[] s = new int[n];
        for (long k = head; k < tail; k++) {
            int from = slot(k);
            int to = (int) (k & (n - 1));
            t[to] = time[from];
            e[to] = entries[from];
            s[to] = size[from];
        }
        time = t;
        entries = e;
        size = s;
    }
}
