package org.balanceroute.router;

/**
 * Where a request went: the decode worker the router gave it to. The request runs there at once
 * if the worker has a free slot, or waits in that worker's FCFS queue (arrival policies only:
 * pool policies place a request only on a worker with a free slot).
 *
 * @param requestId the id it was submitted with
 * @param worker the worker index in [0, G)
 */
public record Placement(long requestId, int worker) {
}
