package org.balanceroute.proxy.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The client streams whose engine reader is held ({@link ClientStream#flush(Runnable)}): one
 * whose client took nothing for {@code clientStallMillis} is cut, which releases its decode slot
 * (a client that stopped reading must not keep a worker's KV). A stream joins when a hold
 * begins and is dropped by the next sweep once it is no longer held, so a stream that keeps up
 * costs nothing here. {@link CompletionFlow} sweeps on its timer thread.
 */
final class StalledClients {

    private final Set<ClientStream> held = ConcurrentHashMap.newKeySet();
    private final LongSupplier stallMillis;

    /** {@code stallMillis}: the bound in force, read at each sweep (the settings may change). */
    StalledClients(LongSupplier stallMillis) {
        this.stallMillis = stallMillis;
    }

    void held(ClientStream s) {
        held.add(s);
    }

    /** Cuts every stream held longer than the bound at {@code now} (nanoTime); returns how many. */
    int sweep(long now) {
        long bound = stallMillis.getAsLong() * 1_000_000L;
        int cut = 0;
        for (ClientStream s : held) {
            long t = s.heldFor(now);
            if (t < 0) {
                held.remove(s);
                if (s.heldFor(now) >= 0) {
                    held.add(s); // held again meanwhile: it joined before the removal
                }
            } else if (t > bound) {
                held.remove(s);
                s.cut();
                cut++;
            }
        }
        return cut;
    }

    /** Streams watched now (tests). */
    int size() {
        return held.size();
    }
}
