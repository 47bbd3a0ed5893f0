package org.balanceroute.cluster.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A peer whose kernel accepts a connection but whose process never answers: a frozen JVM
 * ({@code kill -STOP}, a long pause). The member's connection to it waits for the peer's protocol
 * bytes with its handshake packet queued; it must wait idle. With Hazelcast's plain network
 * configuration its output thread spins there instead (the pipeline reports itself clean and
 * re-queues itself for ever), and every other connection that thread serves sends nothing: the
 * race behind ReplicasIT's follower that lost the dispatcher when the third member was frozen.
 */
class SilentPeerTest {

    /** How long the output threads are watched while the connection waits. */
    private static final long WINDOW_MILLIS = 2000;

    @Test
    void aConnectionToAPeerThatNeverAnswersLeavesTheOutputThreadsIdle() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadCpuTimeSupported(), "this JVM measures a thread's CPU time");
        try (TestMembers group = new TestMembers(1);
                ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String members = "127.0.0.1:" + group.ports.get(0) + ",127.0.0.1:" + silent.getLocalPort();
            Config config = MemberConfigs.build(group.settings(0, Map.of("members", members)),
                    "silent-peer-" + group.clusterName, SilentPeerTest.class.getClassLoader(), "slf4j");
            // the member's join blocks while a listed address answers nothing: started aside
            CompletableFuture<HazelcastInstance> member = CompletableFuture.supplyAsync(() -> MemberConfigs.start(config));
            silent.setSoTimeout(30_000);
            try (Socket connection = silent.accept()) {
                connection.setSoTimeout(30_000);
                InputStream in = connection.getInputStream();
                // the member's protocol header: it now waits for ours, its handshake queued behind it
                assertArrayEquals("HZC".getBytes(StandardCharsets.US_ASCII), in.readNBytes(3), "the member protocol");

                List<Thread> out = Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().startsWith("hz." + config.getInstanceName() + ".IO.thread-out-")).toList();
                assertFalse(out.isEmpty(), "the member's output threads are found by name");
                long before = cpuNanos(threads, out);
                long startedAt = System.nanoTime();
                Thread.sleep(WINDOW_MILLIS); // the window watched, not a wait for an event
                long busy = cpuNanos(threads, out) - before;
                long window = System.nanoTime() - startedAt;
                System.out.printf("SilentPeerTest: the member's %d output threads ran %.1f ms of CPU in a %.0f ms window"
                        + " while its connection waited for the silent peer%n", out.size(), busy / 1e6, window / 1e6);
                assertTrue(busy < window / 4, String.format("the output threads ran %.0f ms of CPU in %.0f ms while the peer"
                        + " was silent", busy / 1e6, window / 1e6));
            } finally {
                silent.close(); // the peer goes: the join ends with the member alone
                try {
                    member.get(60, TimeUnit.SECONDS).getLifecycleService().terminate();
                } finally {
                    HazelcastInstance left = Hazelcast.getHazelcastInstanceByName(config.getInstanceName());
                    if (left != null) {
                        left.getLifecycleService().terminate();
                    }
                }
            }
        }
    }

    private static long cpuNanos(ThreadMXBean threads, List<Thread> of) {
        long sum = 0;
        for (Thread t : of) {
            sum += Math.max(0, threads.getThreadCpuTime(t.getId()));
        }
        return sum;
    }
}
