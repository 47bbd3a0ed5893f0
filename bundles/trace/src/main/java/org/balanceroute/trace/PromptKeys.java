package org.balanceroute.trace;

/**
 * 64-bit prompt identity from a sequence of Mooncake block hashes: FNV-1a over each id's
 * eight bytes, then the MurmurHash3 finaliser so that nearby id sequences land far apart.
 * Deterministic across runs and JVMs, unlike {@code hashCode} of boxed collections.
 */
final class PromptKeys {

    static final long EMPTY = 0xcbf29ce484222325L; // FNV-1a 64-bit offset basis
    private static final long FNV_PRIME = 0x100000001b3L;

    private PromptKeys() {
    }

    /** Folds one block id into the running hash. */
    static long add(long hash, long id) {
        for (int shift = 0; shift < Long.SIZE; shift += Byte.SIZE) {
            hash ^= (id >>> shift) & 0xff;
            hash *= FNV_PRIME;
        }
        return hash;
    }

    /**
     * The key of {@code count} folded ids: {@link TraceRequest#NO_PROMPT_KEY} when there were
     * none, otherwise never that value (a real prompt must not read as "unknown").
     */
    static long finish(long hash, int count) {
        if (count == 0) {
            return TraceRequest.NO_PROMPT_KEY;
        }
        hash ^= hash >>> 33;
        hash *= 0xff51afd7ed558ccdL;
        hash ^= hash >>> 33;
        hash *= 0xc4ceb9fe1a85ec53L;
        hash ^= hash >>> 33;
        return hash == TraceRequest.NO_PROMPT_KEY ? 1 : hash;
    }
}
