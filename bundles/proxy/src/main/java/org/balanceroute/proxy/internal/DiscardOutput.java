package org.balanceroute.proxy.internal;

import java.util.function.Consumer;

/** A client that takes everything at once and keeps only the count: the relay's warm-up and its benchmark write into it. */
final class DiscardOutput implements ClientOutput {
    long bytes;

    @Override
    public void start(Runnable writable, Consumer<Throwable> failed) {
    }

    @Override
    public boolean isReady() {
        return true;
    }

    @Override
    public void write(byte[] b, int offset, int length) {
        bytes += length;
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
}
