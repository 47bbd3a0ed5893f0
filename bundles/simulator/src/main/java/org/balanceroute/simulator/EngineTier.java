package org.balanceroute.simulator;

import org.balanceroute.api.PoolView;
import org.balanceroute.api.RequestView;

/**
 * The simulated DP decode engines, the ground truth every metric is measured on when the
 * routers' views of them are stale: per worker at most B running requests, an FCFS queue beyond,
 * the load L_g = sum of s_i + j over the running ones; one token per running request per step.
 * What vLLM's scheduler does with what it is sent, whatever the routers believed.
 *
 * <p>Requests are the trace's indices. The bookkeeping is the router's {@code PoolState}'s
 * (swap-remove of a finished request, FCFS admission right after), written again over int
 * arrays: with nothing delayed the two agree step for step, which the tests pin.
 */
final class EngineTier implements PoolView {

    private final int workers;
    private final int capacity;
    private final int[] prompt;
    private final int[] output;
    private final int[] decoded;
    private final int[][] active;
    private final int[] running;
    private final long[] load;
    private final int[][] queue;
    private final int[] queueHead;
    private final int[] queueSize;
    private final long[] queuedTokens;
    private final long[] inFlightBytes;
    private int started;
    private long step;

    EngineTier(int workers, int capacity, int[] prompt, int[] output) {
        this.workers = workers;
        this.capacity = capacity;
        this.prompt = prompt;
        this.output = output;
        this.decoded = new int[prompt.length];
        this.active = new int[workers][capacity];
        this.running = new int[workers];
        this.load = new long[workers];
        this.queue = new int[workers][16];
        this.queueHead = new int[workers];
        this.queueSize = new int[workers];
        this.queuedTokens = new long[workers];
        this.inFlightBytes = new long[workers];
    }

    /**
     * A request reaches worker g: it runs from the next step if a slot is free and nobody waits,
     * else it waits FCFS.
     *
     * @return whether it had to wait (the worker was full here)
     */
    boolean receive(int id, int g) {
        inFlightBytes[g] += bodyBytes(id);
        if (running[g] < capacity && queueSize[g] == 0) {
            start(id, g);
            return false;
        }
        enqueue(id, g);
        return true;
    }

    /**
     * One decode step: every running request emits a token; finished ones leave and queued ones
     * take their slots. Appends to {@code record}, in the order handled, each request that got a
     * token: its id, or {@code ~id} when that token was its last.
     *
     * @return how many finished
     */
    int decodeStep(IntList record) {
        int finished = 0;
        // Backwards, because a finished request's slot takes the last running one.
        for (int g = 0; g < workers; g++) {
            for (int i = running[g] - 1; i >= 0; i--) {
                int id = active[g][i];
                decoded[id]++;
                load[g]++;
                if (decoded[id] >= output[id]) {
                    record.add(~id);
                    release(g, i);
                    finished++;
                } else {
                    record.add(id);
                }
            }
        }
        step++;
        return finished;
    }

    /** Tokens request id has emitted. */
    int decoded(int id) {
        return decoded[id];
    }

    /** Requests that have started running, finished ones included. */
    int started() {
        return started;
    }

    private void start(int id, int g) {
        int s = running[g]++;
        active[g][s] = id;
        load[g] += prompt[id] + decoded[id];
        started++;
    }

    private void release(int g, int slot) {
        int id = active[g][slot];
        load[g] -= prompt[id] + decoded[id];
        int last = --running[g];
        active[g][slot] = active[g][last];
        inFlightBytes[g] -= bodyBytes(id);
        while (running[g] < capacity && queueSize[g] > 0) {
            start(dequeue(g), g);
        }
    }

    private void enqueue(int id, int g) {
        int[] q = queue[g];
        if (queueSize[g] == q.length) {
            int[] grown = new int[q.length * 2];
            for (int k = 0; k < queueSize[g]; k++) {
                grown[k] = q[(queueHead[g] + k) % q.length];
            }
            queue[g] = q = grown;
            queueHead[g] = 0;
        }
        q[(queueHead[g] + queueSize[g]) % q.length] = id;
        queueSize[g]++;
        queuedTokens[g] += prompt[id];
    }

    private int dequeue(int g) {
        int[] q = queue[g];
        int id = q[queueHead[g]];
        queueHead[g] = (queueHead[g] + 1) % q.length;
        queueSize[g]--;
        queuedTokens[g] -= prompt[id];
        return id;
    }

    private long bodyBytes(int id) {
        return DecodeSimulator.BODY_BYTES_ENVELOPE + (long) DecodeSimulator.BODY_BYTES_PER_TOKEN * prompt[id];
    }

    @Override
    public int workers() {
        return workers;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public long step() {
        return step;
    }

    @Override
    public long load(int worker) {
        return load[worker];
    }

    @Override
    public int running(int worker) {
        return running[worker];
    }

    @Override
    public int queued(int worker) {
        return queueSize[worker];
    }

    @Override
    public long queuedTokens(int worker) {
        return queuedTokens[worker];
    }

    @Override
    public long inFlightBytes(int worker) {
        return inFlightBytes[worker];
    }

    /** For observers: a copy of the request's state now. */
    @Override
    public RequestView active(int worker, int index) {
        if (index < 0 || index >= running[worker]) {
            throw new IndexOutOfBoundsException("worker " + worker + " runs " + running[worker]
                    + " requests, no index " + index);
        }
        int id = active[worker][index];
        return new Running(id, prompt[id], decoded[id], (int) bodyBytes(id));
    }

    private record Running(long id, int promptTokens, int decodedTokens, int bodyBytes) implements RequestView {

        @Override
        public long promptKey() {
            return NO_PROMPT_KEY;
        }

        @Override
        public long arrivalNanos() {
            return 0;
        }
    }
}
