package org.balanceroute.enginesim.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.balanceroute.core.StepCost;
import org.balanceroute.enginesim.SimConfig;

/**
 * The decode tier's step loop: one thread for all G ranks, which advance together and meet at a
 * barrier every step. A step lasts
 * <pre>  max( a * max_g L_g + b + c * max_g |A_g| ,  max_{g slow} f_g * (a * L_g + b + c * |A_g|) ) * timeFactor</pre>
 * ({@link StepCost}, the law the trace simulator steps by)
 * seconds (f_g: a rank's slow factor, a fault), where {@code L_g} is the sum over the rank's
 * running requests of prompt tokens plus tokens generated so far. At the end of a step every
 * running request has one more token; a chunk goes to its writer every {@code streamInterval}
 * tokens and on the last one. At most B run per rank; the rest wait FCFS in that rank.
 *
 * <p>Threading: the loop owns every queue and request field; HTTP threads talk to it only
 * through {@link #submit}/{@link #abort} (a command inbox, which also wakes the idle loop: no
 * busy spin) and read the published per-rank gauges. The loop never blocks on a client: events
 * go to each request's {@link EngineRequest.Sink} (which wakes its writer and returns), and a
 * request whose client lags more than {@code streamQueueChunks} chunks is cut with an in-band
 * error and released.
 */
final class DecodeEngine implements Runnable {

    private final SimConfig config;
    private final StepCost stepCost;
    private final TimeFactor timeFactor;
    private final int ranks;
    private final Faults faults;
    private final GroundTruthStats stats;
    private final LinkedBlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    private final ArrayDeque<EngineRequest>[] waiting;
    private final List<EngineRequest>[] running;
    private final long[] loads;
    private final int[] batch;
    private final int[] tokensThisStep;

    /** Published gauges, read by /metrics and the all-ranks balancer. */
    final AtomicIntegerArray waitingGauge;
    final AtomicIntegerArray runningGauge;
    final AtomicLongArray kvTokensGauge;

    /** Tokens per streamed chunk: --stream-interval, or the last {@link #setStreamInterval}. */
    private volatile int streamInterval;
    private volatile boolean stopped;
    private long lastStepEnd = -1;
    /** This step's chunks and error endings, queued once the step is counted (step thread only). */
    private final List<Runnable> emits = new ArrayList<>();
    private Thread thread;

    private static final Object WAKE = new Object();

    private record Abort(EngineRequest request) {
    }

    @SuppressWarnings("unchecked")
    DecodeEngine(SimConfig config, TimeFactor timeFactor, Faults faults, GroundTruthStats stats) {
        this.config = config;
        this.stepCost = new StepCost(config.stepA(), config.stepB(), config.stepC());
        this.timeFactor = timeFactor;
        this.ranks = config.decode();
        this.faults = faults;
        this.stats = stats;
        this.streamInterval = config.streamInterval();
        waiting = new ArrayDeque[ranks];
        running = new List[ranks];
        for (int g = 0; g < ranks; g++) {
            waiting[g] = new ArrayDeque<>();
            running[g] = new ArrayList<>();
        }
        loads = new long[ranks];
        batch = new int[ranks];
        tokensThisStep = new int[ranks];
        waitingGauge = new AtomicIntegerArray(ranks);
        runningGauge = new AtomicIntegerArray(ranks);
        kvTokensGauge = new AtomicLongArray(ranks);
    }

    int streamInterval() {
        return streamInterval;
    }

    /** From the next step on; a request keeps what it has emitted so far. */
    void setStreamInterval(int v) {
        if (v < 1 || v > 4096) {
            throw new IllegalArgumentException("streamInterval must be an integer from 1 to 4096, got " + v);
        }
        streamInterval = v;
    }

    void start() {
        thread = new Thread(this, "enginesim-step-loop");
        thread.setDaemon(true);
        thread.start();
    }

    void stop() {
        stopped = true;
        inbox.add(WAKE);
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Queues a request on its rank (FCFS); counted as waiting at once. */
    void submit(EngineRequest r) {
        waitingGauge.incrementAndGet(r.rank);
        inbox.add(r);
    }

    /** The client went away: release the request at the next step boundary. */
    void abort(EngineRequest r) {
        r.aborted = true;
        inbox.add(new Abort(r));
    }

    /** Wakes the loop (a fault changed). */
    void wake() {
        inbox.add(WAKE);
    }

    /** Lowest {@code 4 * waiting + running}, as upstream vLLM's internal DP balancer picks. */
    int leastLoadedRank() {
        int best = -1;
        long bestScore = Long.MAX_VALUE;
        for (int g = 0; g < ranks; g++) {
            if (faults.isDown(g)) {
                continue;
            }
            long score = 4L * waitingGauge.get(g) + runningGauge.get(g);
            if (score < bestScore) {
                bestScore = score;
                best = g;
            }
        }
        return best;
    }

    @Override
    public void run() {
        try {
            while (!stopped) {
                if (!hasWork()) {
                    lastStepEnd = -1;
                    apply(inbox.take());
                }
                drainInbox();
                failDownRanks();
                admit();
                if (!anyRunning()) {
                    continue;
                }
                step();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            releaseAll();
        }
    }

    private boolean hasWork() {
        for (int g = 0; g < ranks; g++) {
            if (!running[g].isEmpty() || !waiting[g].isEmpty()) {
                return true;
            }
        }
        return !inbox.isEmpty();
    }

    private boolean anyRunning() {
        for (int g = 0; g < ranks; g++) {
            if (!running[g].isEmpty()) {
                return true;
            }
        }
        return false;
    }

    private void drainInbox() {
        Object o;
        while ((o = inbox.poll()) != null) {
            apply(o);
        }
    }

    private void apply(Object o) {
        if (o instanceof EngineRequest r) {
            if (r.aborted) {
                waitingGauge.decrementAndGet(r.rank);
                r.state = EngineRequest.State.DONE;
                stats.aborted();
            } else {
                r.state = EngineRequest.State.WAITING;
                waiting[r.rank].addLast(r);
            }
        } else if (o instanceof Abort a) {
            EngineRequest r = a.request();
            if (r.state == EngineRequest.State.WAITING) {
                waiting[r.rank].remove(r);
                waitingGauge.decrementAndGet(r.rank);
                r.state = EngineRequest.State.DONE;
                stats.aborted();
            } else if (r.state == EngineRequest.State.RUNNING) {
                running[r.rank].remove(r);
                runningGauge.decrementAndGet(r.rank);
                r.state = EngineRequest.State.DONE;
                stats.aborted();
            }
            // SUBMITTED: dropped when its submission is applied; DONE: nothing left
        }
    }

    private void failDownRanks() {
        for (int g = 0; g < ranks; g++) {
            if (faults.isDown(g) && (!running[g].isEmpty() || !waiting[g].isEmpty())) {
                String msg = "simulated fault: DP rank " + g + " is down (engine dead)";
                for (EngineRequest r : running[g]) {
                    finishWithError(r, msg, "InternalServerError", 500);
                    runningGauge.decrementAndGet(g);
                }
                running[g].clear();
                for (EngineRequest r : waiting[g]) {
                    finishWithError(r, msg, "InternalServerError", 500);
                    waitingGauge.decrementAndGet(g);
                }
                waiting[g].clear();
                kvTokensGauge.set(g, 0);
            }
        }
    }

    private void admit() {
        int cap = config.capacity();
        for (int g = 0; g < ranks; g++) {
            while (running[g].size() < cap && !waiting[g].isEmpty()) {
                EngineRequest r = waiting[g].pollFirst();
                waitingGauge.decrementAndGet(g);
                r.state = EngineRequest.State.RUNNING;
                running[g].add(r);
                runningGauge.incrementAndGet(g);
            }
        }
    }

    private void step() throws InterruptedException {
        long maxLoad = 0;
        int maxBatch = 0;
        for (int g = 0; g < ranks; g++) {
            long l = 0;
            for (EngineRequest r : running[g]) {
                l += r.load();
            }
            loads[g] = l;
            batch[g] = running[g].size();
            kvTokensGauge.set(g, l);
            maxLoad = Math.max(maxLoad, l);
            maxBatch = Math.max(maxBatch, batch[g]);
        }
        double seconds = stepCost.seconds(maxLoad, maxBatch);
        if (faults.anySlow()) {
            for (int g = 0; g < ranks; g++) {
                double f = faults.slowFactor(g);
                if (f > 1) {
                    seconds = Math.max(seconds, f * stepCost.seconds(loads[g], batch[g]));
                }
            }
        }
        long now = System.nanoTime();
        // back to back steps keep their cadence: the next starts where the previous ended
        long start = lastStepEnd >= 0 && now - lastStepEnd < 50_000_000L ? lastStepEnd : now;
        long end = start + (long) (seconds * timeFactor.get() * 1e9);
        sleepUntil(end);
        if (stopped) {
            return;
        }
        lastStepEnd = end;
        long tokenTime = Math.max(end, System.nanoTime());
        int interval = streamInterval;
        int queueCap = config.streamQueueChunks();
        for (int g = 0; g < ranks; g++) {
            tokensThisStep[g] = 0;
            Iterator<EngineRequest> it = running[g].iterator();
            while (it.hasNext()) {
                EngineRequest r = it.next();
                if (r.aborted) {
                    it.remove();
                    runningGauge.decrementAndGet(g);
                    r.state = EngineRequest.State.DONE;
                    stats.aborted();
                    continue;
                }
                r.generated++;
                tokensThisStep[g]++;
                if (r.generated == 1) {
                    r.firstTokenNanos = tokenTime;
                    stats.firstToken(r.arrivalNanos, tokenTime);
                }
                boolean last = r.generated >= r.outputTokens;
                boolean cut = !last && r.cutAfterTokens > 0 && r.generated >= r.cutAfterTokens;
                if (last) {
                    // counted before the last chunk is queued: once a client has read [DONE], the stats hold it
                    stats.completed(g, r.generated, r.firstTokenNanos, tokenTime);
                }
                boolean queued = last || cut || r.generated - r.emitted >= interval;
                if (queued) {
                    StreamEvent e = StreamEvent.tokens(r.generated - r.emitted, r.generated,
                            last ? (r.generated >= r.maxTokens ? "length" : "stop") : null);
                    emits.add(() -> r.sink.accept(e));
                    r.emitted = r.generated;
                }
                if (last) {
                    it.remove();
                    runningGauge.decrementAndGet(g);
                    r.state = EngineRequest.State.DONE;
                } else if (cut) {
                    it.remove();
                    runningGauge.decrementAndGet(g);
                    emits.add(() -> finishWithError(r, "simulated fault: stream cut after " + r.generated + " tokens",
                            "InternalServerError", 500));
                } else if (r.sink.backlog() + (queued ? 1 : 0) > queueCap) {
                    it.remove();
                    runningGauge.decrementAndGet(g);
                    emits.add(() -> finishWithError(r, "client too slow: more than " + queueCap
                            + " chunks pending, request aborted", "InternalServerError", 500));
                }
            }
        }
        stats.step(loads, batch, seconds, start, tokenTime, tokensThisStep);
        // the chunks go out after the step is in the stats: a client that has read them finds the step counted
        for (Runnable e : emits) {
            e.run();
        }
        emits.clear();
        for (int g = 0; g < ranks; g++) {
            long l = 0;
            for (EngineRequest r : running[g]) {
                l += r.load();
            }
            kvTokensGauge.set(g, l);
        }
    }

    private void finishWithError(EngineRequest r, String message, String type, int code) {
        r.state = EngineRequest.State.DONE;
        r.sink.accept(StreamEvent.error(r.generated, message, type, code));
        stats.aborted();
    }

    private void sleepUntil(long deadline) {
        long left;
        while (!stopped && (left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    private void releaseAll() {
        for (int g = 0; g < ranks; g++) {
            for (EngineRequest r : running[g]) {
                r.sink.accept(StreamEvent.error(r.generated, "the simulated cluster is shutting down",
                        "InternalServerError", 500));
            }
            for (EngineRequest r : waiting[g]) {
                r.sink.accept(StreamEvent.error(r.generated, "the simulated cluster is shutting down",
                        "InternalServerError", 500));
            }
            running[g].clear();
            waiting[g].clear();
        }
        Object o;
        while ((o = inbox.poll()) != null) {
            if (o instanceof EngineRequest r) {
                r.sink.accept(StreamEvent.error(0, "the simulated cluster is shutting down", "InternalServerError", 500));
            }
        }
    }
}
