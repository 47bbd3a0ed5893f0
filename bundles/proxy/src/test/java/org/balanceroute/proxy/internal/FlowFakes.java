package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.TimeoutHandler;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.connector.vllm.DecodeExchange;
import org.balanceroute.connector.vllm.DecodeListener;
import org.balanceroute.connector.vllm.PrefillResult;
import org.balanceroute.connector.vllm.UpstreamResponse;
import org.balanceroute.connector.vllm.VllmConnector;
import org.balanceroute.proxy.ProxyObserver;
import org.balanceroute.router.Placement;
import org.balanceroute.router.RouterService;
import org.balanceroute.router.StepResult;

/** Hand-written fakes of the flow's collaborators: each records what it was asked and answers as the test says. */
final class FlowFakes {

    private FlowFakes() {
    }

    /** Polls a condition (the flow answers on its own threads); fails after 10 s. */
    static void await(String what, BooleanSupplier condition) {
        Awaitility.await(what).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                .until(condition::getAsBoolean);
    }

    /** Outputs for a flow's event streams, each a new sink added to {@code sinks}. */
    static java.util.function.Supplier<ClientOutput> sinks(List<Sink> sinks) {
        return () -> {
            Sink s = new Sink();
            sinks.add(s);
            return s;
        };
    }

    /** A router whose pool depth the test sets and whose placements the test completes. */
    static final class Router implements RouterService {
        volatile int poolDepth;
        final Map<Long, CompletableFuture<Placement>> submitted = new java.util.concurrent.ConcurrentHashMap<>();
        final List<Long> order = new CopyOnWriteArrayList<>();
        final Set<Long> aborted = java.util.concurrent.ConcurrentHashMap.newKeySet();
        final Set<Long> completed = java.util.concurrent.ConcurrentHashMap.newKeySet();
        final AtomicInteger tokens = new AtomicInteger();
        /** Place every submission at once on worker 0, or leave it in the "pool". */
        volatile boolean placeAtOnce = true;

        @Override public String activePolicy() { return "fake"; }
        /** Other pools' routers by name, reached through {@link #pool}. */
        final Map<String, Router> others = new java.util.concurrent.ConcurrentHashMap<>();
        @Override public List<String> pools() { return List.of("default"); }
        @Override public RouterService pool(String name) { return "default".equals(name) ? this : others.get(name); }
        @Override public String poolName() { return "default"; }
        @Override public String configuredPolicy() { return "fake"; }
        @Override public String fallbackPolicy() { return "fake"; }
        @Override public List<String> availablePolicies() { return List.of("fake"); }
        @Override public Map<String, Object> policyParameters(String policy) { return Map.of(); }
        @Override public PoolSnapshot snapshot() { throw new UnsupportedOperationException(); }
        @Override public int poolDepth() { return poolDepth; }
        @Override public boolean automaticStepping() { return true; }
        @Override public CompletableFuture<StepResult> dispatchStep() { throw new UnsupportedOperationException(); }
        @Override public void requestStep() { throw new UnsupportedOperationException("steps automatically"); }
        @Override public long observedStepNanos() { return 0; }
        @Override public void setWorkerAvailable(int worker, boolean available) { }
        @Override public void setLayout(java.util.List<String> workers, int[] groupSizes, int[] capacities) { }
    @Override public void setWorkerDraining(int worker, boolean draining) { }
        @Override public org.balanceroute.router.ReplicasStatus replicas() { throw new UnsupportedOperationException(); }

        @Override
        public CompletableFuture<Placement> submit(long id, int promptTokens, long key, int bytes) {
            CompletableFuture<Placement> f = new CompletableFuture<>();
            submitted.put(id, f);
            order.add(id);
            if (placeAtOnce) {
                f.complete(new Placement(id, 0));
            }
            return f;
        }

        @Override
        public void tokens(long id, int count) {
            tokens.addAndGet(count);
        }

        @Override
        public CompletableFuture<Boolean> complete(long id) {
            completed.add(id);
            return CompletableFuture.completedFuture(true);
        }

        @Override
        public CompletableFuture<Boolean> abort(long id) {
            aborted.add(id);
            CompletableFuture<Placement> f = submitted.get(id);
            if (f != null) {
                f.cancel(false);
            }
            return CompletableFuture.completedFuture(f != null);
        }

        /** Requests submitted and neither completed nor aborted. */
        long inFlight() {
            return order.stream().filter(id -> !aborted.contains(id) && !completed.contains(id)).count();
        }
    }

    /** A connector whose prefills the test completes and whose decodes it drives through the listener. */
    static final class Connector implements VllmConnector {
        final List<ObjectNode> prefillBodies = new CopyOnWriteArrayList<>();
        final List<CompletableFuture<PrefillResult>> prefills = new CopyOnWriteArrayList<>();
        final List<DecodeListener> decodes = new CopyOnWriteArrayList<>();
        final List<AtomicInteger> decodeCancels = new CopyOnWriteArrayList<>();

        @Override public int decodeWorkers() { return 1; }
        @Override public int prefillInstances() { return 1; }
        @Override public boolean decodeHealthy(int worker) { return true; }
        @Override public boolean prefillHealthy(int instance) { return true; }
        @Override public int prefillInFlight(int instance) { return 0; }
        @Override public int prefillQueued() { return 0; }
        @Override public String decodeWorker(int worker) { return "http://fake:" + worker; }
        /** Other pools' connectors by name, reached through {@link #pool}. */
        final Map<String, Connector> others = new java.util.concurrent.ConcurrentHashMap<>();
        @Override public List<String> pools() { return List.of("default"); }
        @Override public VllmConnector pool(String name) { return "default".equals(name) ? this : others.get(name); }
        @Override public String poolName() { return "default"; }
        @Override public CompletableFuture<UpstreamResponse> getFromFirstDecode(String path) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<PrefillResult> prefill(String requestId, String path, ObjectNode clientBody) {
            CompletableFuture<PrefillResult> f = new CompletableFuture<>();
            prefillBodies.add(clientBody);
            prefills.add(f);
            return f;
        }

        @Override
        public DecodeExchange decode(String requestId, String worker, String path, ObjectNode clientBody,
                ObjectNode kv, DecodeListener listener) {
            AtomicInteger cancels = new AtomicInteger();
            decodeCancels.add(cancels);
            decodes.add(listener);
            return cancels::incrementAndGet;
        }

        /** Completes prefill i with s_i = 10. */
        void prefilled(int i) {
            prefills.get(i).complete(new PrefillResult(10, null, 0, 1));
        }
    }

    /** The client's side of an event stream; {@link #gone} makes writes fail as they do once the client left. */
    static final class Sink implements ClientOutput {
        final StringBuffer written = new StringBuffer();
        volatile boolean gone;
        volatile boolean closed;

        @Override
        public void start(Runnable writable, java.util.function.Consumer<Throwable> failed) {
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            if (gone) {
                throw new IOException("Broken pipe");
            }
            written.append(new String(bytes, offset, length, java.nio.charset.StandardCharsets.UTF_8));
        }

        @Override
        public void flush() throws IOException {
            if (gone) {
                throw new IOException("Broken pipe");
            }
        }

        @Override public void close() { closed = true; }
    }

    /** The container's suspended response: keeps what the flow resumed it with. */
    static final class Async implements AsyncResponse {
        volatile Response response;

        @Override
        public boolean resume(Object r) {
            if (response != null) {
                throw new AssertionError("resumed twice: " + response.getStatus() + ", then " + r);
            }
            response = (Response) r;
            return true;
        }

        @Override public boolean resume(Throwable t) { throw new AssertionError(t); }
        @Override public boolean cancel() { return false; }
        @Override public boolean cancel(int retryAfter) { return false; }
        @Override public boolean cancel(Date retryAfter) { return false; }
        @Override public boolean isSuspended() { return response == null; }
        @Override public boolean isCancelled() { return false; }
        @Override public boolean isDone() { return response != null; }
        @Override public boolean setTimeout(long time, TimeUnit unit) { return true; }
        @Override public void setTimeoutHandler(TimeoutHandler handler) { }
        @Override public Collection<Class<?>> register(Class<?> callback) { return List.of(); }
        @Override public Map<Class<?>, Collection<Class<?>>> register(Class<?> callback, Class<?>... callbacks) {
            return Map.of();
        }
        @Override public Collection<Class<?>> register(Object callback) { return List.of(); }
        @Override public Map<Class<?>, Collection<Class<?>>> register(Object callback, Object... callbacks) {
            return Map.of();
        }
    }

    /** Records the outcomes and counts the output tokens. */
    static final class Observer implements ProxyObserver {
        final ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
        final java.util.concurrent.atomic.AtomicInteger tokens = new java.util.concurrent.atomic.AtomicInteger();

        @Override public void outputTokens(int n) { tokens.addAndGet(n); }
        @Override public void firstToken(long nanos) { }
        @Override public void timePerOutputToken(long nanosPerToken) { }
        @Override public void requestEnded(Outcome outcome) { outcomes.add(outcome); }
    }
}
