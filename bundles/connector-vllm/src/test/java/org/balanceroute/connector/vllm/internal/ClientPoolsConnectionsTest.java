package org.balanceroute.connector.vllm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.Destination;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.RoundRobinConnectionPool;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/** The connector's connection pool through a real HTTP client and server: busy connections are skipped, freed ones reused. */
class ClientPoolsConnectionsTest {

    /** Only catches a hang: every wait below is on a condition the client or server reaches by itself. */
    private static final Duration HANG = Duration.ofMinutes(2);

    @Test
    void freedConnectionsAreReusedBeforeNewOnesAreOpened() throws Exception {
        List<CountDownLatch> holds = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            holds.add(new CountDownLatch(1));
        }
        Server server = new Server();
        ServerConnector listener = new ServerConnector(server);
        listener.setHost("127.0.0.1");
        // no idle timeout on either side: a stalled machine must not close the connections under test
        listener.setIdleTimeout(0);
        server.addConnector(listener);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(org.eclipse.jetty.server.Request request, Response response, Callback callback)
                    throws Exception {
                String path = org.eclipse.jetty.server.Request.getPathInContext(request);
                if (path.startsWith("/hold/")) {
                    holds.get(Integer.parseInt(path.substring(6))).await();
                }
                Content.Sink.write(response, true, path, callback);
                return true;
            }
        });
        server.start();
        HttpClient client = new HttpClient();
        client.setIdleTimeout(0);
        client.setMaxConnectionsPerDestination(16);
        client.getTransport().setConnectionPoolFactory(
                d -> ClientPools.connections(d, client.getMaxConnectionsPerDestination()));
        AtomicInteger opened = new AtomicInteger();
        client.addBean(new Connection.Listener() {
            @Override
            public void onOpened(Connection connection) {
                opened.incrementAndGet();
            }
        });
        client.start();
        try {
            String url = "http://127.0.0.1:" + listener.getLocalPort();
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
                CountDownLatch done = answered.get(i);
                await("stream " + i + " answered", () -> done.getCount() == 0);
            }
            // the client releases a connection after its response's listeners ran, so wait for both.
            // At least two: requests sent at once while the first connections are still being opened
            // can make Jetty open one more than it needs (seen under load: 5 for the 4 streams), and
            // that one must have finished opening before the count below is taken
            await("the two connections back in the pool, none still opening",
                    () -> pool.getIdleConnectionCount() >= 2 && pool.getPendingConnectionCount() == 0);
            int openedBefore = opened.get();
            for (int i = 0; i < 10; i++) {
                ContentResponse r = client.newRequest(url + "/quick/" + i).send();
                assertEquals("/quick/" + i, r.getContentAsString());
            }
            assertEquals(openedBefore, opened.get(), "no connection opened beside the freed ones");
            assertEquals(2, pool.getActiveConnectionCount(), "the two streams still held");
        } finally {
            holds.forEach(CountDownLatch::countDown);
            client.stop();
            server.stop();
        }
    }

    private static void await(String what, Callable<Boolean> condition) {
        Awaitility.await(what).atMost(HANG).pollInterval(Duration.ofMillis(5)).until(condition);
    }
}
