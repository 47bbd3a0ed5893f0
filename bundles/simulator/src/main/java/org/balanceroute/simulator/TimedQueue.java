package org.balanceroute.simulator;

/**
 * Placements in transit, FIFO: (time due, request, worker). Every sender adds with the same
 * delay in time order, so the head is always the next due.
 */
final class TimedQueue {

    private double[] due = new double[64];
    private int[] request = new int[64];
    private int[] worker = new int[64];
    private int head;
    private int size;

    void add(double dueTime, int id, int g) {
        if (size == due.length) {
            int n = due.length * 2;
            double[] d = new double[n];
            int[] r = new int[n];
            int[] w = new int[n];
            for (int k = 0; k < size; k++) {
                int from = (head + k) % due.length;
                d[k] = due[from];
                r[k] = request[from];
                w[k] = worker[from];
            }
            due = d;
            request = r;
            worker = w;
            head = 0;
        }
        int at = (head + size) % due.length;
        due[at] = dueTime;
        request[at] = id;
        worker[at] = g;
        size++;
    }

    /** Whether the head is due by {@code time}. */
    boolean due(double time) {
        return size > 0 && due[head] <= time;
    }

    /** When the head is due; +infinity when empty. */
    double nextDue() {
        return size == 0 ? Double.POSITIVE_INFINITY : due[head];
    }

    int headRequest() {
        return request[head];
    }

    int headWorker() {
        return worker[head];
    }

    void removeHead() {
        head = (head + 1) % due.length;
        size--;
    }

    boolean isEmpty() {
        return size == 0;
    }
}
