package org.balanceroute.core;

import java.util.Arrays;
import org.balanceroute.api.PromptPoolView;

/**
 * Requests that finished prefill and wait for a decode worker, oldest first. An array with
 * ordered removal: policies take candidates from the oldest end and remove a handful per step,
 * so shifting a few thousand references is cheaper than any linked structure.
 */
public final class PromptPool implements PromptPoolView {

    private TrackedRequest[] items = new TrackedRequest[64];
    private int size;

    @Override
    public int size() {
        return size;
    }

    @Override
    public TrackedRequest get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("pool index " + index + " of " + size);
        }
        return items[index];
    }

    void add(TrackedRequest request) {
        if (size == items.length) {
            items = Arrays.copyOf(items, size * 2);
        }
        items[size++] = request;
        request.phase = TrackedRequest.Phase.POOLED;
    }

    TrackedRequest removeAt(int index) {
        TrackedRequest removed = get(index);
        System.arraycopy(items, index + 1, items, index, size - index - 1);
        items[--size] = null;
        return removed;
    }

    /** Removes a request wherever it is; false if it is not in the pool. */
    boolean remove(TrackedRequest request) {
        for (int i = 0; i < size; i++) {
            if (items[i] == request) {
                removeAt(i);
                return true;
            }
        }
        return false;
    }
}
