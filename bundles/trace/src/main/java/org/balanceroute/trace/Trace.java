package org.balanceroute.trace;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/** An immutable request trace: requests in arrival order, with where they came from. */
public final class Trace {

    private final String source;
    private final TraceFormat format;
    private final List<TraceRequest> requests;

    /**
     * @param source the file name or the name of the generator that made the trace
     * @param format the format the requests were read from
     * @param requests the requests, in non-decreasing arrival order (copied)
     * @throws IllegalArgumentException if the arrivals go backwards
     */
    public Trace(String source, TraceFormat format, List<TraceRequest> requests) {
        this.source = Objects.requireNonNull(source, "source");
        this.format = Objects.requireNonNull(format, "format");
        this.requests = List.copyOf(requests);
        // Replayers walk the list as a timeline, so out-of-order arrivals are a bug upstream.
        for (int i = 1; i < this.requests.size(); i++) {
            if (this.requests.get(i).arrivalSeconds() < this.requests.get(i - 1).arrivalSeconds()) {
                throw new IllegalArgumentException("request " + i + " arrives before request " + (i - 1));
            }
        }
    }

    public String source() {
        return source;
    }

    public TraceFormat format() {
        return format;
    }

    /** The requests in arrival order; unmodifiable. */
    public List<TraceRequest> requests() {
        return requests;
    }

    public int size() {
        return requests.size();
    }

    /** Mean prompt length in tokens; 0 for an empty trace. */
    public double meanInputTokens() {
        return requests.stream().mapToInt(TraceRequest::inputTokens).average().orElse(0);
    }

    /** Mean output length in tokens; 0 for an empty trace. */
    public double meanOutputTokens() {
        return requests.stream().mapToInt(TraceRequest::outputTokens).average().orElse(0);
    }

    /** Last arrival minus first arrival, in seconds; 0 for fewer than two requests. */
    public double durationSeconds() {
        if (requests.isEmpty()) {
            return 0;
        }
        return requests.get(requests.size() - 1).arrivalSeconds() - requests.get(0).arrivalSeconds();
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT,
                "%s (%s): %d requests over %.1f s, mean input %.0f, mean output %.0f tokens",
                source, format, size(), durationSeconds(), meanInputTokens(), meanOutputTokens());
    }
}
