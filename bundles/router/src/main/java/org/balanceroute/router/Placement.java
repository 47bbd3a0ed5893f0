package org.balanceroute.router;

/**
 * Where a request went: the decode worker the router gave it to. The request runs there at once
 * if the worker has a free slot, or waits in that worker's FCFS queue (arrival policies only:
 * pool policies place a request only on a worker with a free slot).
 *
 * @param requestId the id it was submitted with
 * @param worker the worker index in the layout in force when it was placed
 * @param workerId that worker's identity in the layout ({@link RouterService#setLayout}): the
 *     endpoint to decode on, whatever index it has when the placement is read
 */
public record Placement(long requestId, int worker, String workerId) {

    /** A placement on a worker known by its index only (tests, tools). */
    public Placement(long requestId, int worker) {
        this(requestId, worker, "");
    }
}
