package org.balanceroute.connector.vllm.internal;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The endpoints of one configuration with their health marks and prefill slots. A new
 * configuration makes a new one; the marks of the endpoints the previous one also had are kept,
 * so that a configuration edit does not re-admit a dead engine.
 */
final class Endpoints {
    final ConnectorSettings settings;
    final AtomicIntegerArray prefillDown;
    final AtomicIntegerArray decodeDown;
    /** When the evidence behind each decode mark was gathered (nanoTime); under the health lock. */
    final long[] decodeMarkedAt;
    /** Null in co-located mode. */
    final PrefillSlots prefillSlots;

    Endpoints(ConnectorSettings s, Endpoints previous) {
        settings = s;
        prefillDown = new AtomicIntegerArray(s.prefillUrls().size());
        decodeDown = new AtomicIntegerArray(s.decodeWorkers().size());
        decodeMarkedAt = new long[s.decodeWorkers().size()];
        Arrays.fill(decodeMarkedAt, System.nanoTime());
        prefillSlots = s.prefillUrls().isEmpty() ? null
                : new PrefillSlots(prefillDown, s.prefillMaxInFlight(), s.prefillQueueMax());
        if (previous != null) {
            for (int i = 0; i < s.prefillUrls().size(); i++) {
                int was = previous.settings.prefillUrls().indexOf(s.prefillUrls().get(i));
                prefillDown.set(i, was < 0 ? 0 : previous.prefillDown.get(was));
            }
            for (int g = 0; g < s.decodeWorkers().size(); g++) {
                int was = previous.settings.decodeWorkers().indexOf(s.decodeWorkers().get(g));
                decodeDown.set(g, was < 0 ? 0 : previous.decodeDown.get(was));
                if (was >= 0) {
                    decodeMarkedAt[g] = previous.decodeMarkedAt[was];
                }
            }
        }
    }
}
