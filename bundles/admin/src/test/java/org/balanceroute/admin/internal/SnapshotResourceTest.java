package org.balanceroute.admin.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.router.ReplicaShare;
import org.balanceroute.router.ReplicasStatus;
import org.junit.jupiter.api.Test;

class SnapshotResourceTest {

    @Test
    void snapshotJson() throws Exception {
        FakeRouter router = new FakeRouter();
        router.snapshot = new PoolSnapshot("local", 12, 0, 64, new long[] {1200, 300, 50, 10}, new int[] {3, 1, 1, 1},
                new int[] {0, 2, 0, 0}, 5, new boolean[] {true, false, true, true}, new int[] {0, 0, 1, 1},
                new int[] {64, 64, 64, 64}, new boolean[] {false, false, false, true});
        router.replicas = new ReplicasStatus("hazelcast", "m2", "m1", List.of(
                new ReplicaShare("m1", "127.0.0.1:5701", true, 4, new long[] {1000, 0}, new int[] {2, 0}, new int[] {0, 1}),
                new ReplicaShare("m2", "127.0.0.1:5702", false, 1, new long[] {200, 300}, new int[] {1, 1}, new int[] {0, 1})),
                3.5, new ReplicasStatus.Staleness(10, 2.0, 7.5, 9.0));
        String json = new ObjectMapper().writeValueAsString(new SnapshotResource(router).snapshot(null).getEntity());
        assertEquals("{\"activePolicy\":\"br0\",\"step\":12,\"poolDepth\":5,\"capacity\":64,\"workers\":["
                + "{\"worker\":0,\"load\":1200,\"running\":3,\"queued\":0,\"available\":true,\"instance\":0,\"draining\":false},"
                + "{\"worker\":1,\"load\":300,\"running\":1,\"queued\":2,\"available\":false,\"instance\":0,\"draining\":false},"
                + "{\"worker\":2,\"load\":50,\"running\":1,\"queued\":0,\"available\":true,\"instance\":1,\"draining\":false},"
                + "{\"worker\":3,\"load\":10,\"running\":1,\"queued\":0,\"available\":true,\"instance\":1,\"draining\":true}],"
                + "\"totals\":{\"load\":1560,\"running\":6,\"queued\":2,\"maxLoad\":1200,\"imbalance\":900,"
                + "\"available\":3,\"groupImbalance\":[900,0]},"
                + "\"cluster\":{\"store\":\"hazelcast\",\"localMember\":\"m2\",\"dispatcher\":\"m1\",\"viewAgeMillis\":3.5,"
                + "\"staleness\":{\"samples\":10,\"p50Millis\":2.0,\"p99Millis\":7.5,\"maxMillis\":9.0},\"members\":["
                + "{\"member\":\"m1\",\"address\":\"127.0.0.1:5701\",\"dispatcher\":true,\"pooled\":4,\"load\":1000,"
                + "\"running\":2,\"queued\":1,\"workers\":[{\"worker\":0,\"load\":1000,\"running\":2,\"queued\":0},"
                + "{\"worker\":1,\"load\":0,\"running\":0,\"queued\":1}]},"
                + "{\"member\":\"m2\",\"address\":\"127.0.0.1:5702\",\"dispatcher\":false,\"pooled\":1,\"load\":500,"
                + "\"running\":2,\"queued\":1,\"workers\":[{\"worker\":0,\"load\":200,\"running\":1,\"queued\":0},"
                + "{\"worker\":1,\"load\":300,\"running\":1,\"queued\":1}]}]}}", json);
        assertEquals(json, new ObjectMapper().writeValueAsString(new SnapshotResource(router).snapshot("default").getEntity()),
                "?pool= names a pool");
        jakarta.ws.rs.core.Response unknown = new SnapshotResource(router).snapshot("nope");
        assertEquals(404, unknown.getStatus());
        assertEquals(true, String.valueOf(unknown.getEntity()).contains("nope"));
    }
}
