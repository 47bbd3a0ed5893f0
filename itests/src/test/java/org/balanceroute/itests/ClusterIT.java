package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.FileInputStream;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.balanceroute.api.SnapshotStore;
import org.junit.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;

/**
 * The cluster feature inside the runtime, as a replica joins and leaves: its bundles (the
 * distribution's features/cluster/bundle/) installed and started beside the default bundle set,
 * its configuration given, the SnapshotStore service comes (Hazelcast resolved in Felix, a member
 * up, frames through its topics); uninstalled, the service goes and the member stops.
 */
public class ClusterIT extends BalanceRouteTestSupport {

    private static final String FILTER = "(" + SnapshotStore.NAME_PROPERTY + "=hazelcast)";

    @Test
    public void theFeaturesBundlesJoinAndLeaveARunningRuntime() throws Exception {
        assertTrue("no member without the feature", stores().isEmpty());
        Path feature = Path.of(System.getProperty("balanceroute.dist.dir"), "features", "cluster", "bundle");
        File[] jars = feature.toFile().listFiles((d, name) -> name.endsWith(".jar"));
        assertTrue("the distribution ships the cluster feature in " + feature, jars != null && jars.length == 2);
        Arrays.sort(jars);
        List<Bundle> installed = new ArrayList<>();
        for (File jar : jars) {
            try (InputStream in = new FileInputStream(jar)) {
                installed.add(context.installBundle(jar.toURI().toString(), in));
            }
        }
        for (Bundle b : installed) {
            b.start();
        }
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        configure("org.balanceroute.cluster", "clusterName", "itest-" + port, "members", "127.0.0.1:" + port,
                "port", Integer.toString(port), "portAutoIncrement", "false", "sharedPids", "org.balanceroute.router");
        await("the hazelcast SnapshotStore service", () -> !stores().isEmpty());

        ServiceReference<SnapshotStore> ref = stores().get(0);
        SnapshotStore store = context.getService(ref);
        ConcurrentLinkedQueue<byte[]> frames = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<List<SnapshotStore.Member>> memberships = new ConcurrentLinkedQueue<>();
        try (SnapshotStore.Session session = store.open(new SnapshotStore.Receiver() {
            @Override
            public void membersChanged(List<SnapshotStore.Member> members) {
                memberships.add(members);
            }

            @Override
            public void received(String fromMember, byte[] frame) {
                frames.add(frame);
            }
        })) {
            assertEquals(List.of(new SnapshotStore.Member(session.localMember(), "127.0.0.1:" + port)),
                    memberships.peek());
            session.send(session.localMember(), new byte[] {4, 2});
            await("a frame to itself", () -> !frames.isEmpty());
            assertTrue(Arrays.equals(new byte[] {4, 2}, frames.peek()));
        }
        context.ungetService(ref);

        for (Bundle b : installed) {
            b.uninstall();
        }
        await("the store gone", () -> stores().isEmpty());
        await("the cluster port closed", () -> {
            try (ServerSocket s = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
                return true;
            } catch (java.io.IOException e) {
                return false;
            }
        });
    }

    private List<ServiceReference<SnapshotStore>> stores() {
        try {
            return new ArrayList<>(context.getServiceReferences(SnapshotStore.class, FILTER));
        } catch (org.osgi.framework.InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
