package org.balanceroute.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import org.balanceroute.simulator.SimulationResult;

/** A simulation result as simulate --json and sweep --out write it. */
final class ResultJson {

    private ResultJson() {
    }

    /** One result as a JSON object, every figure by its documented key. */
    static Map<String, Object> row(SimulationResult r) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("policy", r.policy());
        row.put("avgImbalance", r.avgImbalance());
        row.put("meanI", r.meanI());
        row.put("tpotP95Ms", r.tpotP95Ms());
        row.put("throughputTokPerS", r.throughputTokPerS());
        row.put("ttftP50S", r.ttftP50S());
        row.put("ttftP95S", r.ttftP95S());
        row.put("steps", r.steps());
        row.put("makespanS", r.makespanS());
        row.put("avgImbalanceBacklogged", r.avgImbalanceBacklogged());
        row.put("backloggedSteps", r.backloggedSteps());
        row.put("overCapacityPlacements", r.overCapacityPlacements());
        row.put("routerQueuedPlacements", r.routerQueuedPlacements());
        row.put("engineQueuedSteps", r.engineQueuedSteps());
        row.put("steadySteps", r.steadySteps());
        row.put("steadyAvgImbalance", r.steadyAvgImbalance());
        row.put("steadyThroughputTokPerS", r.steadyThroughputTokPerS());
        row.put("steadyTpotP95Ms", r.steadyTpotP95Ms());
        if (r.groups() > 1) {
            row.put("groupImbalance", r.groupImbalance());
            row.put("steadyGroupImbalance", r.steadyGroupImbalance());
        }
        return row;
    }
}
