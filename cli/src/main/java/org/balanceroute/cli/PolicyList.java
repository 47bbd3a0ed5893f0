package org.balanceroute.cli;

import java.util.ArrayList;
import java.util.List;
import org.balanceroute.simulator.PolicyCatalog;
import org.balanceroute.simulator.TraceSimulation;

/** The value of {@code --policies} (simulate, sweep): a comma list of known names, each once. */
final class PolicyList {

    private PolicyList() {
    }

    static List<String> parse(String list) throws UsageException {
        List<String> names = new ArrayList<>();
        for (String raw : list.split(",")) {
            String name = raw.trim();
            if (name.isEmpty()) {
                continue;
            }
            if (!TraceSimulation.knows(name)) {
                throw new UsageException("--policies: unknown policy '" + name + "'; known: "
                        + String.join(", ", TraceSimulation.POLICIES) + ", "
                        + String.join(", ", PolicyCatalog.SIMULATOR_ONLY));
            }
            if (names.contains(name)) {
                throw new UsageException("--policies: '" + name + "' listed twice");
            }
            names.add(name);
        }
        if (names.isEmpty()) {
            throw new UsageException("--policies: no policy given");
        }
        return names;
    }
}
