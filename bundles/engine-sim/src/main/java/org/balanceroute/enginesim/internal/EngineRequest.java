package org.balanceroute.enginesim.internal;

import java.util.concurrent.LinkedBlockingQueue;

/**
 * One decode request on one rank. The step loop owns {@link #generated} and {@link #state};
 * the writer (the HTTP thread of the request) reads the {@link #events} and flags an abort.
 */
final class EngineRequest {

    enum State { SUBMITTED, WAITING, RUNNING, DONE }

    final String id;
    final int rank;
    final int promptTokens;
    final int outputTokens;
    /** The request's max_tokens: reaching it ends with finish_reason "length", else "stop". */
    final int maxTokens;
    /** The stream is cut with an in-band error after this many tokens; 0 = never. */
    final int cutAfterTokens;
    /** When the request reached the cluster (the prefill hop's arrival when it had one). */
    final long arrivalNanos;
    final LinkedBlockingQueue<StreamEvent> events = new LinkedBlockingQueue<>();

    volatile boolean aborted;

    // owned by the step loop
    State state = State.SUBMITTED;
    int generated;
    int emitted;
    long firstTokenNanos;

    EngineRequest(String id, int rank, int promptTokens, int outputTokens, int maxTokens, int cutAfterTokens,
                  long arrivalNanos) {
        this.id = id;
        this.rank = rank;
        this.promptTokens = promptTokens;
        this.outputTokens = outputTokens;
        this.maxTokens = maxTokens;
        this.cutAfterTokens = cutAfterTokens;
        this.arrivalNanos = arrivalNanos;
    }

    /** KV tokens the request holds now: its prompt plus what it generated. */
    long load() {
        return (long) promptTokens + generated;
    }
}
