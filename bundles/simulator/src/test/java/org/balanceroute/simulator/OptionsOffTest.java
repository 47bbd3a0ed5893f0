package org.balanceroute.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.predictor.survival.SurvivalSettings;
import org.balanceroute.trace.TraceRequest;
import org.junit.jupiter.api.Test;

/**
 * Every option added to BR-0 / BR-H after the paper's method, at its "off" value, makes exactly
 * the decisions the method made before the option existed: the per-step per-worker loads of a
 * run hash to the value recorded with the code before the options (commit 32aacf4). The options
 * after stage1Worker and horizonMargin (projectedSlots, the predictors' quantile and window) are held, at
 * their defaults, to the defaults' decisions recorded before them (commit d9483d7).
 */
class OptionsOffTest {

    private static final SimulationConfig SMALL = new SimulationConfig(4, 8, 2e-7, 0.02, 0, 0, 0, 1);

    /** Recorded before the options existed, by {@link #fingerprint} on the same workload. */
    private static final long BR0 = -7476362191247361932L;
    private static final long BRH_SURVIVAL = 88306966221429876L;
    private static final long BRH_ORACLE = 3685314097441368500L;
    private static final long BRH_EXACT = 515858202845149364L;

    /** Recorded at commit d9483d7, before projectedSlots and the quantile, with {@link BalanceSettings#defaults()}. */
    private static final long BR0_DEFAULTS = 5751105138765757620L;
    private static final long BRH_SURVIVAL_DEFAULTS = 3890158004667802612L;
    private static final long BRH_EXACT_DEFAULTS = -6452431554111817804L;
    private static final long BRH_ORACLE_DEFAULTS = -5682428200211672716L;

    static long fingerprint(String policy, BalanceSettings settings) {
        return fingerprint(policy, settings, SurvivalSettings.defaults());
    }

    static long fingerprint(String policy, BalanceSettings settings, SurvivalSettings predictor) {
        List<TraceRequest> trace = DecodeSimulatorTest.workload(11, 600);
        PolicyCatalog.Setup setup = PolicyCatalog.create(policy, 1, settings, predictor,
                id -> trace.get((int) id).outputTokens(), List.of());
        long[] hash = {1125899906842597L};
        new DecodeSimulator(SMALL).run(trace, setup.policy(), setup.learners(), (step, time, view) -> {
            for (int g = 0; g < view.workers(); g++) {
                hash[0] = 31 * hash[0] + view.load(g);
                hash[0] = 31 * hash[0] + view.running(g);
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
        assertEquals(BRH_EXACT, fingerprint("brh-exact", off()), "brh-exact");
    }

    @Test
    void theDefaultsMakeTheDecisionsOfBeforeProjectedSlotsAndTheQuantile() {
        BalanceSettings d = BalanceSettings.defaults();
        assertEquals(0, d.projectedSlots());
        assertEquals(BR0_DEFAULTS, fingerprint("br0", d), "br0");
        assertEquals(BRH_SURVIVAL_DEFAULTS, fingerprint("brh-survival", d), "brh-survival");
        assertEquals(BRH_EXACT_DEFAULTS, fingerprint("brh-exact", d), "brh-exact");
        assertEquals(BRH_ORACLE_DEFAULTS, fingerprint("brh-oracle", d), "brh-oracle");
        assertEquals(BRH_EXACT_DEFAULTS, fingerprint("brh-exact", d, new SurvivalSettings(
                SurvivalSettings.DEFAULT_MIN_SAMPLES, SurvivalSettings.DEFAULT_QUANTILE)), "the quantile written out");
    }

    @Test
    void projectedSlotsAndTheQuantileChangeThem() {
        BalanceSettings d = BalanceSettings.defaults();
        assertNotEquals(BRH_ORACLE_DEFAULTS, fingerprint("brh-oracle", d.withProjectedSlots(4)));
        assertNotEquals(BRH_SURVIVAL_DEFAULTS, fingerprint("brh-survival", d.withProjectedSlots(4)));
        assertEquals(BR0_DEFAULTS, fingerprint("br0", d.withProjectedSlots(4)), "br0 has no predictor: nothing projected");
        assertNotEquals(BRH_SURVIVAL_DEFAULTS, fingerprint("brh-survival", d,
                new SurvivalSettings(SurvivalSettings.DEFAULT_MIN_SAMPLES, 0.25)));
        assertNotEquals(BRH_EXACT_DEFAULTS, fingerprint("brh-exact", d,
                new SurvivalSettings(SurvivalSettings.DEFAULT_MIN_SAMPLES, 0.75)));
        assertNotEquals(BRH_SURVIVAL_DEFAULTS, fingerprint("brh-survival", d,
                new SurvivalSettings(SurvivalSettings.DEFAULT_MIN_SAMPLES, SurvivalSettings.DEFAULT_QUANTILE, 64)));
    }

    @Test
    void optionsOnChangeThem() {
        assertNotEquals(BR0, fingerprint("br0", off().withOrdering(BalanceSettings.Stage1Worker.MARGIN,
                BalanceSettings.HorizonMargin.MIN)));
        assertNotEquals(BRH_ORACLE, fingerprint("brh-oracle", off().withOrdering(BalanceSettings.Stage1Worker.SLOTS,
                BalanceSettings.HorizonMargin.MEAN)));
    }
}
