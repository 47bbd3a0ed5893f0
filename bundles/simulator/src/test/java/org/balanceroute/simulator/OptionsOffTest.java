package org.balanceroute.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.trace.TraceRequest;
import org.junit.jupiter.api.Test;

/**
 * Every option added to BR-0 / BR-H after the paper's method, at its "off" value, makes exactly
 * the decisions the method made before the option existed: the per-step per-worker loads of a
 * run hash to the value recorded with the code before the options (commit 32aacf4).
 */
class OptionsOffTest {

    private static final SimulationConfig SMALL = new SimulationConfig(4, 8, 2e-7, 0.02, 0, 0, 0, 1);

    /** Recorded before the options existed, by {@link #fingerprint} on the same workload. */
    private static final long BR0 = -7476362191247361932L;
    private static final long BRH_SURVIVAL = 88306966221429876L;
    private static final long BRH_ORACLE = 3685314097441368500L;

    static long fingerprint(String policy, BalanceSettings settings) {
        List<TraceRequest> trace = DecodeSimulatorTest.workload(11, 600);
        PolicyCatalog.Setup setup = PolicyCatalog.create(policy, 1, settings, id -> trace.get((int) id).outputTokens());
        long[] hash = {1125899906842597L};
        new DecodeSimulator(SMALL).run(trace, setup.policy(), setup.learners(), (step, time, cluster) -> {
            for (int g = 0; g < cluster.workers(); g++) {
                hash[0] = 31 * hash[0] + cluster.load(g);
                hash[0] = 31 * hash[0] + cluster.running(g);
            }
        }, n -> { });
        return hash[0];
    }

    private static BalanceSettings off() {
        return BalanceSettings.defaults().withOrdering(BalanceSettings.Stage1Worker.SLOTS,
                BalanceSettings.HorizonMargin.MIN);
    }

    @Test
    void optionsOffMakeTheDecisionsOfBefore() {
        assertEquals(BR0, fingerprint("br0", off()), "br0");
        assertEquals(BRH_SURVIVAL, fingerprint("brh-survival", off()), "brh-survival");
        assertEquals(BRH_ORACLE, fingerprint("brh-oracle", off()), "brh-oracle");
    }

    @Test
    void optionsOnChangeThem() {
        assertNotEquals(BR0, fingerprint("br0", off().withOrdering(BalanceSettings.Stage1Worker.MARGIN,
                BalanceSettings.HorizonMargin.MIN)));
        assertNotEquals(BRH_ORACLE, fingerprint("brh-oracle", off().withOrdering(BalanceSettings.Stage1Worker.SLOTS,
                BalanceSettings.HorizonMargin.MEAN)));
    }
}
