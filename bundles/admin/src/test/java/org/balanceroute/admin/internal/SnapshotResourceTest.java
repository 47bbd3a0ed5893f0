package org.balanceroute.admin.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.balanceroute.api.ClusterSnapshot;
import org.junit.jupiter.api.Test;

class SnapshotResourceTest {

    @Test
    void snapshotJson() throws Exception {
        FakeRouter router = new FakeRouter();
        router.snapshot = new ClusterSnapshot("local", 12, 0, 64, new long[] {1200, 300}, new int[] {3, 1},
                new int[] {0, 2}, 5, new boolean[] {true, false});
        String json = new ObjectMapper().writeValueAsString(new SnapshotResource(router).snapshot());
        assertEquals("{\"activePolicy\":\"br0\",\"step\":12,\"poolDepth\":5,\"capacity\":64,\"workers\":["
                + "{\"worker\":0,\"load\":1200,\"running\":3,\"queued\":0,\"available\":true},"
                + "{\"worker\":1,\"load\":300,\"running\":1,\"queued\":2,\"available\":false}],"
                + "\"totals\":{\"load\":1500,\"running\":4,\"queued\":2,\"maxLoad\":1200,\"imbalance\":900,"
                + "\"available\":1}}", json);
    }
}
