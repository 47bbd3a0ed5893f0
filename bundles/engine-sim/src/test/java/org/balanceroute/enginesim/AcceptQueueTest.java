package org.balanceroute.enginesim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.balanceroute.testkit.ListenQueue;
import org.junit.jupiter.api.Test;

/**
 * Every endpoint listens with a backlog of 4096 (capped by {@code net.core.somaxconn}), not the
 * JDK's 50: a burst of connections from a proxy's pool or a replay waits in the kernel's accept
 * queue instead of losing SYNs. A real vLLM's uvicorn listens with 2048.
 */
class AcceptQueueTest {

    @Test
    void everyEndpointListensWithABacklogOf4096() throws Exception {
        int somaxconn = ListenQueue.somaxconn();
        assumeTrue(somaxconn > 0, "no /proc/sys/net/core/somaxconn");
        try (SimCluster c = SimCluster.start(SimConfig.builder().prefill(1).decode(2).portBase(0).timeFactor(0.01).build())) {
            for (int port : new int[] {c.prefillPort(0), c.allRanksPort(), c.decodePort(0), c.decodePort(1)}) {
                int backlog = ListenQueue.backlog(port);
                assumeTrue(backlog >= 0, "no ss (iproute2) to read the backlog with");
                assertEquals(Math.min(4096, somaxconn), backlog, "listen backlog of port " + port);
            }
        }
    }
}
