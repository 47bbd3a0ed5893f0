package org.balanceroute.cli;

import static org.balanceroute.policy.balance.BalancePolicy.BR0;
import static org.balanceroute.policy.balance.BalancePolicy.BRH_SURVIVAL;
import java.util.List;
import org.balanceroute.policy.baseline.JoinShortestQueuePolicy;

/**
 * One measured replay of {@code ./balanceroute demo}: a policy on one replica, or on N replicas
 * with or without the shared snapshot; with {@code --tune}, BR-H started from a poor pair
 * ({@link #POOR}), the same pair replayed once more ({@link #POOR_AGAIN}: the control, as warm as
 * what follows) and the same after the self-tuner's search over it ({@link #TUNED}, or
 * {@link #KEPT} when it applied nothing).
 */
record DemoPhase(String policy, int replicas, boolean shared, String tuning, int instances) {

    static final List<String> POLICIES = List.of(JoinShortestQueuePolicy.NAME, BR0, BRH_SURVIVAL);
    static final String POOR = "poor";
    static final String POOR_AGAIN = "poor-again";
    static final String TUNED = "tuned";
    static final String KEPT = "kept";

    DemoPhase(String policy, int replicas, boolean shared) {
        this(policy, replicas, shared, null);
    }

    DemoPhase(String policy, int replicas, boolean shared, String tuning) {
        this(policy, replicas, shared, tuning, 0);
    }

    /**
     * A phase of {@code --instances}: the policy on one runtime whose pool file lists
     * {@code instances} decode instances (1: every rank as one instance, flat).
     */
    static DemoPhase ofInstances(String policy, int instances) {
        return new DemoPhase(policy, 1, false, null, instances);
    }

    /** The phases of a run: the three policies on one runtime, or the replica comparison. */
    static List<DemoPhase> phases(int replicas) {
        return phases(replicas, false);
    }

    /**
     * With {@code tune}: jsq, BR-H from the poor pair twice, and BR-H after the self-tuner applied
     * its winner. The tuned phase is compared with the second replay of the poor pair, which the
     * tuner searched over: the first BR-H phase runs while the runtime still warms up (its
     * imbalance measured 19-23% above the next phase's whatever the tuner did), the second is as
     * warm as the tuned one.
     */
    static List<DemoPhase> phases(int replicas, boolean tune) {
        return phases(replicas, tune, 1);
    }

    /**
     * With {@code instances} > 1: jsq and group-aware br0 given the instances as they are, flat br0
     * given every rank as one instance.
     */
    static List<DemoPhase> phases(int replicas, boolean tune, int instances) {
        if (instances > 1) {
            return List.of(ofInstances(JoinShortestQueuePolicy.NAME, instances), ofInstances(BR0, 1), ofInstances(BR0, instances));
        }
        if (tune) {
            return List.of(new DemoPhase(JoinShortestQueuePolicy.NAME, 1, false), new DemoPhase(BRH_SURVIVAL, 1, false, POOR),
                    new DemoPhase(BRH_SURVIVAL, 1, false, POOR_AGAIN), new DemoPhase(BRH_SURVIVAL, 1, false, TUNED));
        }
        if (replicas < 2) {
            return POLICIES.stream().map(p -> new DemoPhase(p, 1, false)).toList();
        }
        return List.of(new DemoPhase(JoinShortestQueuePolicy.NAME, 1, false), new DemoPhase(BR0, 1, false),
                new DemoPhase(BR0, replicas, false), new DemoPhase(BR0, replicas, true));
    }

    /**
     * The chart file of the phase: {@code POLICY.png} on one replica,
     * {@code POLICY-N-replicas-local.png} / {@code -shared.png} on N.
     */
    String chartName() {
        if (instances > 0) {
            return policy + (policy.equals(BR0) ? instances == 1 ? "-flat" : "-grouped" : "") + ".png";
        }
        if (tuning != null) {
            return "tune-" + tuning + ".png";
        }
        return replicas == 1 ? policy + ".png"
                : policy + "-" + replicas + "-replicas-" + (shared ? "shared" : "local") + ".png";
    }

    /** How the phase is named in the demo's lines and tables. */
    String label() {
        if (instances > 0) {
            return policy.equals(BR0) ? instances == 1 ? "br0 flat" : "br0 group-aware" : policy;
        }
        if (POOR.equals(tuning)) {
            return policy + " (43, 0.86)";
        }
        if (POOR_AGAIN.equals(tuning)) {
            return policy + " (43, 0.86) again";
        }
        if (TUNED.equals(tuning)) {
            return policy + " tuned";
        }
        if (KEPT.equals(tuning)) {
            return policy + " (43, 0.86) kept";
        }
        return replicas == 1 ? policy : policy + " on " + replicas + " replicas, "
                + (shared ? "shared snapshot" : "local views");
    }
}
