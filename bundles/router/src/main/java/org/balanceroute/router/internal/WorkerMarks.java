package org.balanceroute.router.internal;

import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decode workers as this replica knows them: the layout in force, and the marks it keeps on
 * them by identity (so they follow a worker to its new index): its own health marks and the
 * operators' drains. Owned by the dispatch thread.
 */
final class WorkerMarks {

    // the router's lines keep the logger name operators filter on
    private static final Logger LOG = LoggerFactory.getLogger(DispatchLoop.class);

    /** The decode workers and their instances, from the topology; null until told. */
    private WorkerLayout layout;
    /** G, the layout's workers; 0 until told. */
    private int workers;
    /** This replica's own health marks: the workers it marked down, by identity. */
    private final Set<String> ownDown = new HashSet<>();
    /**
     * The operators' drains, by worker identity: those in force (alone, dispatcher), or the last
     * view's with this replica's own asks not shown yet (follower; what it starts from if it comes
     * to dispatch).
     */
    private final Set<String> drains = new HashSet<>();

    /** The layout in force, null before the first. */
    WorkerLayout layout() {
        return layout;
    }

    int workers() {
        return workers;
    }

    /** Worker g's identity in the layout in force. */
    String id(int g) {
        return layout.id(g);
    }

    /** The index of a worker in the layout in force; -1 if it has none, or before the first. */
    int indexOf(String workerId) {
        return layout == null ? -1 : layout.indexOf(workerId);
    }

    /** A new layout: the marks of workers it does not have are dropped. */
    void relayout(WorkerLayout next) {
        layout = next;
        workers = next.workers();
        ownDown.removeIf(id -> next.indexOf(id) < 0);
        drains.removeIf(id -> next.indexOf(id) < 0);
    }

    Set<String> ownDown() {
        return ownDown;
    }

    /** This replica's health checks mark a worker down or up again; whether that changed its mark. */
    boolean mark(String workerId, boolean up) {
        return up ? ownDown.remove(workerId) : ownDown.add(workerId);
    }

    /** Whether this replica's own health checks mark the worker down. */
    boolean isDown(String workerId) {
        return ownDown.contains(workerId);
    }

    /** The drains as this replica knows them (see the class comment); a follower's view updates them. */
    Set<String> drains() {
        return drains;
    }

    boolean isDraining(String workerId) {
        return drains.contains(workerId);
    }

    /** A follower's ask: kept until a view shows it (the dispatcher owns drains). */
    void askDrain(int g, String workerId, boolean draining) {
        if (draining ? drains.add(workerId) : drains.remove(workerId)) {
            LOG.info("router: worker {} ({}) {}; the dispatcher is told", g, workerId,
                    draining ? "drains" : "ends its drain");
        }
    }
}
