package org.balanceroute.simulator;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.balanceroute.trace.TraceRequest;

/**
 * The workloads a sweep cell runs, drawn from one trace.
 *
 * <p><b>Shuffled copy</b> k of a trace: copy 0 is the trace as recorded; copy k > 0 keeps every
 * arrival time and deals the requests (prompt length, output length, prompt identity) onto them in
 * an order shuffled by a {@link Random} seeded with {@code seed + k}, and gives their prompt
 * identities a copy-k tag, so that two copies never share a prompt (an exact-match predictor would
 * otherwise find every prompt again in the next copy). Shuffling over fixed arrivals, rather than
 * cutting the trace into disjoint segments, keeps the arrival process (its bursts), the length
 * distribution and the arrival span, so the capacity estimate, the rate scale for a load and the
 * steady-state window are the same for every copy; a segment would be 1/N as long and carry its
 * own load. What changes is which request comes when: the coincidences of long outputs and bursts
 * that one run of one trace cannot average out.
 *
 * <p><b>Sample</b> s of a cell superposes {@code copies} shuffled copies, s * copies .. s * copies
 * + copies - 1, merged by arrival: sample 0 holds the trace as recorded. With copies = G / G_min
 * every G of a sweep offers the same arrival span at a given load (the cluster that is four
 * times larger serves four times the users over the same hour, rather than the same users four
 * times faster), so the warm-up and the steady window are as long in simulated seconds, against
 * request lifetimes that do not depend on G.
 *
 * <p><b>Scaled</b>: the same requests with every arrival divided by a rate scale, the trace replayed
 * faster or slower ({@link OfferedLoad#rateScaleFor} gives the scale of an offered load).
 */
public final class TraceSample {

    private static final long COPY_TAG = 0x9E3779B97F4A7C15L;

    private TraceSample() {
    }

    /** Copy k of {@code trace} (in arrival order): the trace itself for k = 0. */
    public static List<TraceRequest> shuffled(List<TraceRequest> trace, long seed, int copy) {
        if (copy < 0) {
            throw new IllegalArgumentException("copy must be >= 0, got " + copy);
        }
        if (copy == 0) {
            return trace;
        }
        List<TraceRequest> bodies = new ArrayList<>(trace);
        Collections.shuffle(bodies, new Random(seed + copy));
        List<TraceRequest> out = new ArrayList<>(trace.size());
        for (int i = 0; i < trace.size(); i++) {
            TraceRequest body = bodies.get(i);
            out.add(new TraceRequest(trace.get(i).arrivalSeconds(), body.inputTokens(), body.outputTokens(),
                    tagged(body.promptKey(), copy)));
        }
        return out;
    }

    /** Sample {@code sample} of a cell: {@code copies} shuffled copies merged by arrival (stable). */
    public static List<TraceRequest> superposed(List<TraceRequest> trace, long seed, int sample, int copies) {
        if (sample < 0 || copies < 1) {
            throw new IllegalArgumentException("need sample >= 0 and copies >= 1, got " + sample + ", " + copies);
        }
        List<TraceRequest> out = new ArrayList<>(trace.size() * copies);
        for (int c = 0; c < copies; c++) {
            out.addAll(shuffled(trace, seed, sample * copies + c));
        }
        out.sort(Comparator.comparingDouble(TraceRequest::arrivalSeconds));
        return out;
    }

    /** The requests with every arrival divided by {@code factor} (a rate scale: > 1 is heavier). */
    public static List<TraceRequest> scaled(List<TraceRequest> requests, double factor) {
        List<TraceRequest> out = new ArrayList<>(requests.size());
        for (TraceRequest t : requests) {
            out.add(new TraceRequest(t.arrivalSeconds() / factor, t.inputTokens(), t.outputTokens(), t.promptKey()));
        }
        return out;
    }

    private static long tagged(long promptKey, int copy) {
        if (promptKey == TraceRequest.NO_PROMPT_KEY) {
            return promptKey;
        }
        long key = promptKey ^ (copy * COPY_TAG);
        return key == TraceRequest.NO_PROMPT_KEY ? promptKey : key;
    }
}
