package org.balanceroute.router.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * What a follower has to tell the dispatcher and has not sent yet: the events in the order they
 * happened (submissions, completions, aborts, health marks, drains), and the tokens of each request
 * summed since the last frame (one record per request, not per chunk). Owned by the dispatch
 * thread. A frame is the tokens first, then the events: a request's own tokens are written just
 * before its completion, so the dispatcher learns its length before it ends.
 */
final class FollowerOutbox {

    private final Frames.Writer events = new Frames.Writer();
    private final List<InFlight> withTokens = new ArrayList<>();
    private byte flags;
    private boolean urgent;
    private boolean pending;
    /** When the first pending item was added (flush timing). */
    private long since;
    /** The clock when the oldest pending item was seen (staleness); Long.MAX_VALUE while none. */
    private long oldestSeen = Long.MAX_VALUE;

    boolean isEmpty() {
        return !pending;
    }

    /** Whether something waits that should go at once (anything but tokens). */
    boolean urgent() {
        return urgent;
    }

    long since() {
        return since;
    }

    void submit(InFlight f, long now) {
        events.putByte(Frames.K_SUBMIT).putLong(f.id).putInt(f.promptTokens).putLong(f.promptKey)
                .putInt(f.bodyBytes).putLong(now - f.arrivalNanos);
        added(now, f.arrivalNanos, true);
    }

    void tokens(InFlight f, int count, long at) {
        if (f.pendingTokens == 0) {
            withTokens.add(f);
            f.pendingSince = at;
        }
        f.pendingTokens += count;
        f.pendingSeenAt = at;
        added(at, at, false);
    }

    void complete(InFlight f, long now) {
        if (f.pendingTokens > 0) {
            writeTokens(events, f, now);
        }
        events.putByte(Frames.K_COMPLETE).putLong(f.id);
        added(now, now, true);
    }

    void abort(InFlight f, long now) {
        f.pendingTokens = 0; // an aborted request's length teaches nothing
        events.putByte(Frames.K_ABORT).putLong(f.id);
        added(now, now, true);
    }

    void mark(String worker, boolean up, long now) {
        events.putByte(Frames.K_MARK).putString(worker).putByte(up ? 1 : 0);
        added(now, now, true);
    }

    void drain(String worker, boolean draining, long now) {
        events.putByte(Frames.K_DRAIN).putString(worker).putByte(draining ? 1 : 0);
        added(now, now, true);
    }

    void flag(byte flag, long now) {
        flags |= flag;
        added(now, Long.MAX_VALUE, true);
    }

    /** Writes the EVENTS frame of what is pending into {@code w} and forgets it. */
    void writeFrame(Frames.Writer w, int session, long seq, long now) {
        w.begin(Frames.EVENTS, session, seq, now, oldestSeen == Long.MAX_VALUE ? 0 : oldestSeen).putByte(flags);
        for (InFlight f : withTokens) {
            if (f.pendingTokens > 0) {
                writeTokens(w, f, now);
            }
        }
        w.putBytes(events);
        clear();
    }

    /** Drops what is pending (a SYNC says it all). */
    void clear() {
        for (InFlight f : withTokens) {
            f.pendingTokens = 0;
        }
        withTokens.clear();
        events.clear();
        flags = 0;
        urgent = false;
        pending = false;
        oldestSeen = Long.MAX_VALUE;
    }

    private static void writeTokens(Frames.Writer w, InFlight f, long now) {
        w.putByte(Frames.K_TOKENS).putLong(f.id).putInt(f.pendingTokens).putLong(now - f.pendingSeenAt);
        f.pendingTokens = 0;
    }

    private void added(long now, long seenAt, boolean isUrgent) {
        if (!pending) {
            pending = true;
            since = now;
        }
        urgent |= isUrgent;
        oldestSeen = Math.min(oldestSeen, seenAt);
    }
}
