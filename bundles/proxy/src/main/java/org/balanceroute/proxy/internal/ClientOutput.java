package org.balanceroute.proxy.internal;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * Where one client's event stream goes, written without blocking (the servlet's non-blocking
 * output: {@link ServletEventStream} in the runtime, a buffer in tests). The contract is the
 * servlet's: {@link #write} and {@link #flush} only after {@link #isReady()} said true; when it
 * said false, {@code writable} runs once the output can take more. One writer at a time
 * ({@link ClientStream} sees to it).
 */
interface ClientOutput {

    /**
     * Begins: from now on {@code writable} runs (possibly on a container thread) whenever the
     * output can take more after {@link #isReady()} said false, and {@code failed} when a write
     * failed (the client left).
     */
    void start(Runnable writable, Consumer<Throwable> failed);

    /** Whether a write would not block: the previous write and flush are done. */
    boolean isReady();

    /** Hands bytes over; the array must not change until {@link #isReady()} says true again. */
    void write(byte[] bytes, int offset, int length) throws IOException;

    /** Sends what was handed over. */
    void flush() throws IOException;

    /** Ends the response (everything handed over is sent first); quiet when the client is gone. */
    void close();
}
