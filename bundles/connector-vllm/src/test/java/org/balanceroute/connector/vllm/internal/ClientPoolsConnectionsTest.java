package org.balanceroute.connector.vllm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.Destination;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.RoundRobinConnectionPool;
import org.junit.jupiter.api.Test;

/** The connector's connection pool through a real HTTP client and server: busy connections are skipped, freed ones reused. */
class ClientPoolsConnectionsTest {

    @Test
    void freedConnectionsAreReusedBeforeNewOnesAreOpened() throws Exception {
        List<CountDownLatch> holds = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            holds.add(new CountDownLatch(1));
        }
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", ex -> {
            String path = ex.getRequestURI().getPath();
            if (path.startsWith("/hold/")) {
                try {
                    holds.get(Integer.parseInt(path.substring(6))).await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] out = path.getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, out.length);
            ex.getResponseBody().write(out);
            ex.close();
        });
        server.start();
        HttpClient client = new HttpClient();
        client.setMaxConnectionsPerDestination(16);
        client.getTransport().setConnectionPoolFactory(
                d -> ClientPools.connections(d, client.getMaxConnectionsPerDestination()));
        client.start();
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort();
            List<CountDownLatch> answered = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                CountDownLatch done = new CountDownLatch(1);
                answered.add(done);
                client.newRequest(url + "/hold/" + i).send(r -> done.countDown());
            }
            Destination d = client.getDestinations().get(0);
            RoundRobinConnectionPool pool = assertInstanceOf(RoundRobinConnectionPool.class, d.getConnectionPool());
            await("four connections busy", () -> pool.getActiveConnectionCount() == 4);
            // the two oldest streams end: their connections are free again
            for (int i = 0; i < 2; i++) {
                holds.get(i).countDown();
                assertTrue(answered.get(i).await(10, TimeUnit.SECONDS), "stream " + i + " answered");
            }
            // the client releases a connection after its response's listeners ran: the quick requests
            // must find both back in the pool (sent at once, one found none under load and opened a fifth)
            await("the two connections back in the pool", () -> pool.getIdleConnectionCount() == 2);
            for (int i = 0; i < 10; i++) {
                Request q = client.newRequest(url + "/quick/" + i);
                ContentResponse r = q.send();
                assertEquals("/quick/" + i, r.getContentAsString());
            }
            assertEquals(4, pool.getConnectionCount(), "no connection opened beside the two freed ones");
            assertEquals(2, pool.getActiveConnectionCount(), "the two streams still held");
        } finally {
            holds.forEach(CountDownLatch::countDown);
            client.stop();
            server.stop(0);
        }
    }

    /** Waits for a condition the client reaches on its own threads; the bound only catches a hang. */
    private static void await(String what, Callable<Boolean> condition) {
        Awaitility.await(what).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).until(condition);
    }
}
