package org.balanceroute.fleet;

import java.net.URI;

/**
 * How one decode worker (one DP rank) is reached: its base URL, one per rank ("external DP"), or
 * one API server for the whole group with the rank pinned by the {@code X-data-parallel-rank}
 * header ("internal LB": written {@code URL;rank=N}, N the rank's global number in its group).
 *
 * @param url the base URL, http(s), without a trailing slash
 * @param rank the rank to pin, or -1 for none
 */
public record Endpoint(String url, int rank) {

    /**
     * Reads {@code URL} or {@code URL;rank=N}.
     *
     * @param field the configuration property it came from, for the error
     * @throws IllegalArgumentException naming the field and the entry
     */
    public static Endpoint parse(String field, String entry) {
        String e = entry == null ? "" : entry.trim();
        int rank = -1;
        int semi = e.indexOf(';');
        if (semi >= 0) {
            String opt = e.substring(semi + 1).trim();
            e = e.substring(0, semi).trim();
            if (!opt.startsWith("rank=")) {
                throw new IllegalArgumentException(field + ": '" + entry + "': expected URL or URL;rank=N");
            }
            try {
                rank = Integer.parseInt(opt.substring(5).trim());
            } catch (NumberFormatException x) {
                rank = -2;
            }
            if (rank < 0) {
                throw new IllegalArgumentException(field + ": '" + entry + "': rank must be an integer >= 0");
            }
        }
        return new Endpoint(url(field, e), rank);
    }

    /**
     * An http(s) base URL with a host, without trailing slashes.
     *
     * @throws IllegalArgumentException naming the field and the value
     */
    public static String url(String field, String u) {
        String s = u == null ? "" : u.trim();
        while (s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        try {
            URI uri = URI.create(s);
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new IllegalArgumentException();
            }
        } catch (IllegalArgumentException x) {
            throw new IllegalArgumentException(field + ": '" + u + "' is not an http(s) URL");
        }
        return s;
    }

    /** The worker's identity, as written: {@code URL} or {@code URL;rank=N}. */
    public String id() {
        return rank < 0 ? url : url + ";rank=" + rank;
    }

    @Override
    public String toString() {
        return id();
    }
}
