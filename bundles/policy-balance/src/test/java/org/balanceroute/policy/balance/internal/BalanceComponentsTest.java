package org.balanceroute.policy.balance.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.core.PoolState;
import org.balanceroute.core.Router;
import org.balanceroute.core.TrackedRequest;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceProperties;
import org.balanceroute.policy.balance.BalanceSettings;
import org.junit.jupiter.api.Test;

class BalanceComponentsTest {

    /** Says every request ends in 3 steps and counts the questions. */
    static final class CountingPredictor implements TerminationPredictor {
        int asked;
        public String name() { return "counting"; }
        public int predictEnd(RequestView r, int h, double c) { asked++; return Math.min(3, h); }
        public void onCompleted(RequestView r, int out) { }
    }

    private static Map<String, Object> defaults() {
        return BalanceProperties.toMap(BalanceSettings.defaults());
    }

    /** Runs a small random workload through a policy; returns the worker of every request. */
    private static List<Integer> run(RoutingPolicy policy) {
        PoolState state = new PoolState(4, 3);
        Router router = new Router(state, policy, List.of());
        SplittableRandom random = new SplittableRandom(3);
        List<TrackedRequest> all = new ArrayList<>();
        for (int step = 0; step < 40; step++) {
            for (int i = 0; i < 2; i++) {
                TrackedRequest r = new TrackedRequest(all.size(), 1 + random.nextInt(4000), 0, 10, 0);
                all.add(r);
                router.submit(r);
            }
            router.dispatch();
            for (int g = 0; g < state.workers(); g++) {
                for (int i = state.running(g) - 1; i >= 0; i--) {
                    TrackedRequest r = state.active(g, i);
                    router.onTokens(r, 1);
                    if (r.decodedTokens() >= 1 + r.id() % 5) {
                        router.complete(r);
                    }
                }
            }
            state.advanceStep();
        }
        return all.stream().map(TrackedRequest::worker).toList();
    }

    @Test
    void componentsDecideExactlyAsThePlainPolicies() {
        Map<String, Object> tuned = Map.of("rMax", 4, "sGreedy", 2);
        BalanceSettings settings = new BalanceSettings(2, 4, 80, 1, 14.67, 0.64, 0.5);
        assertEquals(run(BalancePolicy.br0(settings)), run(new Br0PolicyComponent(tuned)));
        CountingPredictor a = new CountingPredictor(), b = new CountingPredictor();
        assertEquals(run(BalancePolicy.brh("survival", settings, a)),
                run(new BrhSurvivalPolicyComponent(tuned, b)));
        assertEquals(a.asked, b.asked);
        assertTrue(b.asked > 0, "BR-H asks its predictor");
    }

    @Test
    void namesAndParameters() {
        CountingPredictor p = new CountingPredictor();
        Br0PolicyComponent br0 = new Br0PolicyComponent(Map.of());
        assertEquals("br0", br0.name());
        assertTrue(br0.usesPromptPool());
        assertEquals(defaults(), br0.parameters());
        assertEquals(List.of("sGreedy", "rMax", "horizon", "alpha", "beta", "gamma", "confidence", "stage1Worker",
                "horizonMargin", "projectedSlots"),
                List.copyOf(br0.parameters().keySet()));
        assertEquals("brh-survival", new BrhSurvivalPolicyComponent(Map.of(), p).name());
        assertEquals("brh-exact", new BrhExactPolicyComponent(Map.of(), p).name());
        Br0BypassPolicyComponent bypass = new Br0BypassPolicyComponent();
        assertEquals("br0-bypass", bypass.name());
        assertFalse(bypass.usesPromptPool());
        assertEquals(Map.of(), bypass.parameters());
    }

    @Test
    void anInvalidConfigurationKeepsTheLastGoodSettings() {
        Br0PolicyComponent br0 = new Br0PolicyComponent(Map.of("rMax", 4));
        assertEquals(4, br0.settings().rMax());
        assertFalse(br0.reconfigure(Map.of("rMax", 99)));
        assertFalse(br0.reconfigure(Map.of("gamma", 0.0)));
        assertFalse(br0.reconfigure(Map.of("alpha", "x")));
        br0.modified(Map.of("confidence", 2.0));
        assertEquals(4, br0.settings().rMax());
        assertEquals(BalanceSettings.DEFAULT_CONFIDENCE, br0.settings().confidence());

        assertTrue(br0.reconfigure(Map.of("rMax", 6, "horizon", 10)));
        assertEquals(6, br0.settings().rMax());
        assertEquals(6, br0.parameters().get("rMax"));
        assertEquals(10, br0.parameters().get("horizon"));
    }

    @Test
    void anInvalidFirstConfigurationFailsTheActivationNamingPidAndProperty() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> new Br0PolicyComponent(Map.of("horizon", -5)));
        assertEquals("org.balanceroute.policy.balance: horizon must be an integer in [0, 1000], got -5", e.getMessage());
        e = assertThrows(ConfigurationException.class, () -> new Br0PolicyComponent(Map.of("beta", "x")));
        assertEquals("beta", e.property());
    }
}
