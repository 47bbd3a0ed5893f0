package org.balanceroute.simulator;

import java.util.ArrayList;
import java.util.List;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.policy.balance.BalanceSettings.HorizonMargin;
import org.balanceroute.policy.balance.BalanceSettings.Stage1Worker;
import org.balanceroute.trace.TraceRequest;

/**
 * The headroom: an offline reference that knows the whole trace, to show how far br0 and BR-H
 * are from what is reachable on a workload. It runs a portfolio of configurations that no online
 * router can run, each through the same core: BR-H with the oracle predictor (every request's
 * true output length) at several horizons and weights, up to the whole-trace horizon the spec's
 * theory asks for (H = 400 steps, no discount, beta = G) with a wider Stage 2 search (R_max =
 * 12), and br0 itself; then it keeps, per workload, the one with the lowest steady-state average
 * imbalance (ties: higher steady throughput). Choosing after the fact is what makes it offline,
 * and keeping br0 in the portfolio makes it never worse than br0 by construction: the question
 * it answers is how much lower than br0's the imbalance can be on this very workload.
 *
 * <p>It is a bound from below on what these methods reach, not the optimum of the problem (an
 * exhaustive search over assignments is exponential in the requests): a figure near br0's means
 * the portfolio found no headroom, not that none exists. Cost: one run per member.
 */
public final class HeadroomReference {

    /** The name it takes in tables and in {@code --policies}. */
    public static final String NAME = "reference";

    /** One configuration of the portfolio: a policy of {@link PolicyCatalog} with its settings. */
    public record Member(String label, String policy, BalanceSettings settings) {
    }

    /** The best member's result (named {@value #NAME}), which member it was, and every member's. */
    public record Outcome(SimulationResult result, String member, List<SimulationResult> members) {
    }

    private HeadroomReference() {
    }

    /** The portfolio for a cluster of G workers, around the settings in force. */
    public static List<Member> members(BalanceSettings base, int workers) {
        BalanceSettings paper = base.withOrdering(Stage1Worker.SLOTS, HorizonMargin.MIN);
        BalanceSettings lightest = base.withOrdering(Stage1Worker.MARGIN, HorizonMargin.MEAN);
        BalanceSettings theory = new BalanceSettings(base.sGreedy(), 12, 400, 1, workers, 1.0, base.confidence(),
                Stage1Worker.MARGIN, HorizonMargin.MEAN);
        List<Member> m = new ArrayList<>();
        m.add(new Member(BalancePolicy.BR0, BalancePolicy.BR0, base));
        m.add(new Member("br0 paper options", BalancePolicy.BR0, paper));
        m.add(new Member("br0 stage1 margin", BalancePolicy.BR0, lightest));
        m.add(new Member("oracle", BalancePolicy.BRH_ORACLE, base));
        m.add(new Member("oracle paper options", BalancePolicy.BRH_ORACLE, paper));
        m.add(new Member("oracle stage1 margin, mean", BalancePolicy.BRH_ORACLE, lightest));
        m.add(new Member("oracle H=400 gamma=1 beta=G rMax=12", BalancePolicy.BRH_ORACLE, theory));
        m.add(new Member("oracle H=40 (43, 0.86)", BalancePolicy.BRH_ORACLE,
                lightest.withHorizon(40, 1, 43, 0.86)));
        return m;
    }

    /** Runs every member on the trace (one proxy) and keeps the best. */
    public static Outcome run(List<TraceRequest> trace, SimulationConfig config, SteadyState steady,
            BalanceSettings base, long seed) {
        List<SimulationResult> all = new ArrayList<>();
        SimulationResult best = null;
        String bestLabel = null;
        List<Member> seen = new ArrayList<>();
        for (Member member : members(base, config.workers())) {
            if (seen.stream().anyMatch(m -> m.policy().equals(member.policy()) && m.settings().equals(member.settings()))) {
                continue; // the settings in force are one of the others
            }
            seen.add(member);
            PolicyCatalog.Setup setup = PolicyCatalog.create(member.policy(), seed, member.settings(),
                    id -> trace.get((int) id).outputTokens());
            SimulationResult r = new DecodeSimulator(config, ProxyReplicas.SINGLE, steady).run(trace,
                    setup.policy(), setup.learners(), StepObserver.NONE, n -> { });
            all.add(r);
            if (best == null || better(r, best)) {
                best = r;
                bestLabel = member.label();
            }
        }
        return new Outcome(renamed(best), bestLabel, List.copyOf(all));
    }

    private static boolean better(SimulationResult a, SimulationResult b) {
        return a.steadyAvgImbalance() < b.steadyAvgImbalance() || (a.steadyAvgImbalance() == b.steadyAvgImbalance()
                && a.steadyThroughputTokPerS() > b.steadyThroughputTokPerS());
    }

    private static SimulationResult renamed(SimulationResult r) {
        return new SimulationResult(NAME, r.avgImbalance(), r.meanI(), r.tpotP95Ms(), r.throughputTokPerS(),
                r.ttftP50S(), r.ttftP95S(), r.steps(), r.makespanS(), r.avgImbalanceBacklogged(), r.outputTokens(),
                r.requests(), r.backloggedSteps(), r.overCapacityPlacements(), r.routerQueuedPlacements(),
                r.engineQueuedSteps(), r.steadyStartS(), r.steadyEndS(), r.steadySteps(), r.steadyAvgImbalance(),
                r.steadyThroughputTokPerS(), r.steadyTpotP95Ms(), r.groupImbalance(), r.steadyGroupImbalance());
    }
}
