package org.balanceroute.proxy.internal;

import static org.balanceroute.proxy.internal.FlowFakes.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.balanceroute.proxy.ProxyObserver.Outcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The flow while the router or the connector is away (a bundle update): requests held, then dispatched or refused. */
class HoldingTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STREAM = "{\"model\": \"m\", \"prompt\": \"Say:\", \"max_tokens\": 10, \"stream\": true}";

    private final FlowFakes.Router router = new FlowFakes.Router();
    private final FlowFakes.Connector connector = new FlowFakes.Connector();
    private final FlowFakes.Observer observer = new FlowFakes.Observer();
    private final List<FlowFakes.Sink> sinks = new ArrayList<>();
    private CompletionFlow flow;

    /** A flow with the connector bound and no router yet. */
    private CompletionFlow flow(long holdTimeoutMillis, int maxHeldRequests) {
        flow = new CompletionFlow(null, connector, new ProxySettings(1 << 20, 60_000, 64, 0, 3, 0, 0,
                ProxyConfig.DEFAULT_MAX_TOKENS_LIMIT, holdTimeoutMillis, maxHeldRequests,
                ProxyConfig.DEFAULT_CLIENT_STALL_MILLIS, false), FlowFakes.sinks(sinks));
        flow.observer(observer);
        return flow;
    }

    @AfterEach
    void close() {
        if (flow != null) {
            flow.close();
        }
    }

    private FlowFakes.Async send() {
        FlowFakes.Async async = new FlowFakes.Async();
        flow.handle(Endpoint.COMPLETIONS, STREAM.getBytes(StandardCharsets.UTF_8), "req-1", async);
        return async;
    }

    /** A request prefilled and waiting in the router's pool, both bound. */
    private FlowFakes.Async waitingInThePool(long holdTimeoutMillis) {
        flow(holdTimeoutMillis, 8);
        router.placeAtOnce = false;
        flow.bindRouter(router);
        FlowFakes.Async async = send();
        connector.prefilled(0);
        await("in the router's pool", () -> router.submitted.size() == 1);
        return async;
    }

    private static JsonNode error(FlowFakes.Async async) throws Exception {
        return JSON.readTree((byte[]) async.response.getEntity()).path("error");
    }

    @Test
    void aRequestArrivingWithoutARouterIsHeldThenDispatchedWhenOneIsBound() {
        flow(10_000, 8);
        FlowFakes.Async async = send();
        assertFalse(async.isDone(), "held, not refused");
        assertEquals(1, flow.held());
        assertTrue(connector.prefills.isEmpty(), "nothing starts while held");

        flow.bindRouter(router);
        await("the held request's prefill", () -> connector.prefills.size() == 1);
        assertEquals(0, flow.held());
        connector.prefilled(0);
        await("its decode", () -> connector.decodes.size() == 1);
        assertEquals(1, router.order.size());
        assertFalse(async.isDone());
    }

    @Test
    void aRequestHeldLongerThanHoldTimeoutMillisGets503WithRetryAfter() throws Exception {
        flow(100, 8);
        FlowFakes.Async async = send();
        await("the answer", async::isDone);
        assertEquals(503, async.response.getStatus());
        assertEquals("3", async.response.getHeaderString("Retry-After"));
        assertEquals("service_unavailable_error", error(async).path("type").asText());
        assertTrue(error(async).path("message").asText().contains("not in service for 100 ms (holdTimeoutMillis"),
                error(async).toString());
        assertEquals(0, flow.held());
        assertEquals(List.of(Outcome.TIMEOUT), List.copyOf(observer.outcomes));

        flow.bindRouter(router);
        assertTrue(connector.prefills.isEmpty(), "a refused request is not dispatched later");
    }

    @Test
    void beyondMaxHeldRequestsA503WithRetryAfterComesAtOnce() throws Exception {
        flow(10_000, 1);
        FlowFakes.Async first = send();
        FlowFakes.Async second = send();
        assertFalse(first.isDone());
        assertTrue(second.isDone(), "refused at once");
        assertEquals(503, second.response.getStatus());
        assertEquals("3", second.response.getHeaderString("Retry-After"));
        assertTrue(error(second).path("message").asText().contains("maxHeldRequests"), error(second).toString());
        assertEquals(List.of(Outcome.REJECTED), List.copyOf(observer.outcomes));

        flow.bindRouter(router);
        await("the held one dispatched", () -> connector.prefills.size() == 1);
    }

    @Test
    void aRequestInTheStoppedRoutersPoolIsSubmittedToTheNextRouter() {
        FlowFakes.Async async = waitingInThePool(10_000);

        FlowFakes.Router next = new FlowFakes.Router();
        flow.unbindRouter(router);
        router.submitted.values().iterator().next().completeExceptionally(new IllegalStateException("the router is stopped"));
        await("held until the next router is in service", () -> flow.held() == 1);
        flow.bindRouter(next);
        await("submitted to the next router", () -> next.submitted.size() == 1);
        await("its decode", () -> connector.decodes.size() == 1);
        assertEquals(1, connector.prefills.size(), "the same prefill");
        assertFalse(async.isDone());
    }

    @Test
    void aPlacementWithoutAConnectorDecodesOnTheNextOne() {
        waitingInThePool(10_000);

        flow.unbindConnector(connector);
        router.submitted.values().iterator().next().complete(new org.balanceroute.router.Placement(1, 0));
        await("the placement held", () -> flow.held() == 1);
        FlowFakes.Connector next = new FlowFakes.Connector();
        flow.bindConnector(next);
        await("decoded on the next connector", () -> next.decodes.size() == 1);
        assertTrue(connector.decodes.isEmpty());
    }

    @Test
    void aPlacementHeldTooLongIsReleasedInTheRouterAnd503() throws Exception {
        FlowFakes.Async async = waitingInThePool(100);
        flow.unbindConnector(connector);
        long id = router.order.get(0);
        router.submitted.get(id).complete(new org.balanceroute.router.Placement(id, 0));
        await("the answer", async::isDone);
        assertEquals(503, async.response.getStatus());
        assertTrue(router.aborted.contains(id), "released in the router");
    }
}
