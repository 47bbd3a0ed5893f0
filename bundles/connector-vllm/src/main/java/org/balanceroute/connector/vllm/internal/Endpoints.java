package org.balanceroute.connector.vllm.internal;

import java.util.List;
import org.balanceroute.fleet.Endpoint;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The endpoints of one configuration (the pool's, in worker order) with their health marks and
 * prefill slots. A new configuration makes a new one; the marks of the endpoints the previous one
 * also had are kept, so that a configuration edit does not re-admit a dead engine.
 */
final class Endpoints {
    final ConnectorSettings settings;
    /** The prefill instances' base URLs. */
    final List<String> prefill;
    /** The decode workers, instance by instance (the router's worker g is entry g). */
    final List<Endpoint> decode;
    /** Each decode worker's index by its identity ({@link Endpoint#id()}). */
    final Map<String, Integer> decodeIndex;
    final AtomicIntegerArray prefillDown;
    final AtomicIntegerArray decodeDown;
    /** When the evidence behind each decode mark was gathered (nanoTime); under the health lock. */
    final long[] decodeMarkedAt;
    /** Health checks failed in a row, per prefill instance and per decode worker (reset by a 200). */
    final AtomicIntegerArray prefillFailures;
    final AtomicIntegerArray decodeFailures;
    /**
     * The previous configuration's decode workers that this one dropped, by identity: the router
     * applies a new layout a moment after the connector, so a placement it made on the old one may
     * still come for a removed worker, and it decodes on that worker's engine like the requests
     * already running there.
     */
    final Map<String, Endpoint> removed;
    /** Null in co-located mode. */
    final PrefillSlots prefillSlots;

    Endpoints(ConnectorSettings s, Endpoints previous) {
        settings = s;
        prefill = s.pool().prefillUrls();
        decode = List.copyOf(s.pool().workers());
        Map<String, Integer> index = new HashMap<>();
        for (int g = 0; g < decode.size(); g++) {
            index.put(decode.get(g).id(), g);
        }
        decodeIndex = Map.copyOf(index);
        prefillDown = new AtomicIntegerArray(prefill.size());
        decodeDown = new AtomicIntegerArray(decode.size());
        decodeMarkedAt = new long[decode.size()];
        prefillFailures = new AtomicIntegerArray(prefill.size());
        decodeFailures = new AtomicIntegerArray(decode.size());
        Arrays.fill(decodeMarkedAt, System.nanoTime());
        prefillSlots = prefill.isEmpty() ? null
                : new PrefillSlots(prefillDown, s.prefillMaxInFlight(), s.prefillQueueMax());
        Map<String, Endpoint> gone = new HashMap<>();
        if (previous != null) {
            for (Endpoint w : previous.decode) {
                if (!decodeIndex.containsKey(w.id())) {
                    gone.put(w.id(), w);
                }
            }
        }
        removed = Map.copyOf(gone);
        if (previous != null) {
            for (int i = 0; i < prefill.size(); i++) {
                int was = previous.prefill.indexOf(prefill.get(i));
                prefillDown.set(i, was < 0 ? 0 : previous.prefillDown.get(was));
            }
            for (int g = 0; g < decode.size(); g++) {
                int was = previous.decode.indexOf(decode.get(g));
                decodeDown.set(g, was < 0 ? 0 : previous.decodeDown.get(was));
                if (was >= 0) {
                    decodeMarkedAt[g] = previous.decodeMarkedAt[was];
                }
            }
        }
    }
}
