package org.balanceroute.enginesim.internal;

import java.util.function.Function;

/**
 * One decode request on one rank. The step loop owns {@link #generated} and {@link #state} and
 * hands the request's events to its {@link Sink} (the stream writer, or the non-streaming answer);
 * the sink's side flags an abort.
 */
final class EngineRequest {

    enum State { SUBMITTED, WAITING, RUNNING, DONE }

    /**
     * Where the step loop hands a request's events. Called on the step loop (and, at shutdown,
     * by whoever stops it): must not block nor write to a client there.
     */
    interface Sink {

        void accept(StreamEvent event);

        /** Events handed over that the writer has not taken yet: above the cap the loop cuts the request. */
        int backlog();
    }

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
    final Sink sink;

    volatile boolean aborted;

    // owned by the step loop
    State state = State.SUBMITTED;
    int generated;
    int emitted;
    long firstTokenNanos;

    EngineRequest(String id, int rank, int promptTokens, int outputTokens, int maxTokens, int cutAfterTokens,
                  long arrivalNanos, Function<EngineRequest, Sink> sink) {
        this.id = id;
        this.rank = rank;
        this.promptTokens = promptTokens;
        this.outputTokens = outputTokens;
        this.maxTokens = maxTokens;
        this.cutAfterTokens = cutAfterTokens;
        this.arrivalNanos = arrivalNanos;
        this.sink = sink.apply(this); // last: the sink's writer may keep this request (to abort it)
    }

    /** KV tokens the request holds now: its prompt plus what it generated. */
    long load() {
        return (long) promptTokens + generated;
    }
}
