package org.balanceroute.router.internal;

import java.util.Map;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.router.RouterService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which policy the router runs: the configured one, else the fallback, else {@link HoldPolicy},
 * among the registered ones; logged once per transition. The settings and the registered
 * policies are published by any thread and read by the dispatch thread, which selects; the name
 * in force ({@link #active()}) is read by any.
 */
final class PolicyChoice {

    // the router's lines keep the logger name operators filter on
    private static final Logger LOG = LoggerFactory.getLogger(DispatchLoop.class);

    private enum Mode { CONFIGURED, FALLBACK, NONE }

    /** What the selection logs about; a new log line only when this changes. */
    private record Selection(Mode mode, String configured, String fallback, String active) {
    }

    private final HoldPolicy hold = new HoldPolicy();
    private volatile RouterSettings settings;
    private volatile Map<String, RoutingPolicy> available = Map.of();
    private volatile String activeName = RouterService.NO_POLICY;

    // --- owned by the dispatch thread
    private Selection lastSelection;
    private Selection selection;
    private String selectedName = RouterService.NO_POLICY;

    PolicyChoice(RouterSettings settings) {
        this.settings = settings;
    }

    /** The policy that places nothing: everything waits in the pool. */
    HoldPolicy hold() {
        return hold;
    }

    RouterSettings settings() {
        return settings;
    }

    void settings(RouterSettings next) {
        settings = next;
    }

    void offer(Map<String, RoutingPolicy> policies) {
        available = Map.copyOf(policies);
    }

    /** The name of the policy in force, as the callers see it. Any thread. */
    String active() {
        return activeName;
    }

    void active(String name) {
        activeName = name;
    }

    /** The name of this router's own selection (what a dispatcher shows its followers). */
    String selected() {
        return selectedName;
    }

    /** Selects the configured policy, else the fallback, else the hold policy; {@link #logTransition} tells it. */
    RoutingPolicy select() {
        RouterSettings s = settings;
        Map<String, RoutingPolicy> policies = available;
        RoutingPolicy next = policies.get(s.policy());
        Mode mode = Mode.CONFIGURED;
        String name = s.policy();
        if (next == null) {
            next = policies.get(s.fallbackPolicy());
            mode = Mode.FALLBACK;
            name = s.fallbackPolicy();
        }
        if (next == null) {
            next = hold;
            mode = Mode.NONE;
            name = RouterService.NO_POLICY;
        }
        selectedName = name;
        selection = new Selection(mode, s.policy(), s.fallbackPolicy(), name);
        return next;
    }

    /** Logs the last selection if it differs from the one logged before. */
    void logTransition() {
        Selection now = selection;
        Selection before = lastSelection;
        lastSelection = now;
        if (now.equals(before)) {
            return;
        }
        switch (now.mode()) {
            case CONFIGURED -> {
                if (before != null && before.mode() != Mode.CONFIGURED && before.configured().equals(now.configured())) {
                    LOG.info("router: policy '{}' is available again and active (was '{}')", now.active(), before.active());
                } else {
                    LOG.info("router: policy '{}' active", now.active());
                }
            }
            case FALLBACK -> LOG.warn("router: {} policy = '{}' is not available (no such policy service: a name not"
                    + " installed or misspelt); falling back to fallbackPolicy '{}'", RouterService.PID, now.configured(),
                    now.active());
            case NONE -> LOG.error("router: neither the configured policy '{}' nor the fallback '{}' is available; "
                    + "requests wait in the prompt pool until one is", now.configured(), now.fallback());
        }
    }
}
