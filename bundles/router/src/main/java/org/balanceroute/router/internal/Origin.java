package org.balanceroute.router.internal;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * Another proxy replica, as the dispatcher knows it: its requests by its own ids, its health
 * marks, where its stream of frames stands, and the placements not yet sent back to it. Owned by
 * the dispatch thread.
 */
final class Origin {

    final String member;
    final LongMap<InFlight> requests = new LongMap<>();
    /** Workers, by identity, its health checks marked down (the dispatcher routes around a worker any replica marks down). */
    final Set<String> down = new HashSet<>();
    /** Its session as its last SYNC opened it; its events of another session are not applied. */
    int session = -1;
    long expectedSeq;
    /** Sequence of the next answer (PLACEMENTS) to it, within its session. */
    long outSeq;
    /** A gap was seen (or it never synced): its events are dropped until its next SYNC. */
    boolean awaitingSync = true;
    long lastHeardAt;
    long resyncAskedAt;
    /** Whether a membership list ever named it (an origin never named is purged by its silence only). */
    boolean seenInMembership;
    /** The fingerprint of its layout last logged as differing from the dispatcher's (0: none). */
    long layoutMismatchLogged;

    // placements and step answers to send back, in order
    private long[] placedIds = new long[16];
    private int[] placedWorkers = new int[16];
    private String[] placedWorkerIds = new String[16];
    private int placements;
    int stepsRun;

    Origin(String member) {
        this.member = member;
    }

    void placed(long id, int worker, String workerId) {
        if (placements == placedIds.length) {
            placedIds = Arrays.copyOf(placedIds, placements * 2);
            placedWorkers = Arrays.copyOf(placedWorkers, placements * 2);
            placedWorkerIds = Arrays.copyOf(placedWorkerIds, placements * 2);
        }
        placedIds[placements] = id;
        placedWorkerIds[placements] = workerId;
        placedWorkers[placements++] = worker;
    }

    boolean hasAnswers() {
        return placements > 0 || stepsRun > 0;
    }

    /** Writes the pending answers as a PLACEMENTS body and forgets them. */
    void writeAnswers(Frames.Writer w, long step, int poolDepth) {
        w.putInt(stepsRun).putLong(step).putInt(poolDepth).putInt(placements);
        for (int i = 0; i < placements; i++) {
            w.putLong(placedIds[i]).putInt(placedWorkers[i]).putString(placedWorkerIds[i]);
            placedWorkerIds[i] = null;
        }
        placements = 0;
        stepsRun = 0;
    }

    void clearAnswers() {
        Arrays.fill(placedWorkerIds, 0, placements, null);
        placements = 0;
        stepsRun = 0;
    }

    boolean marksDown(String worker) {
        return down.contains(worker);
    }
}
