package org.balanceroute.router.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.balanceroute.api.SnapshotStore;
import org.balanceroute.router.ReplicaShare;
import org.balanceroute.router.StepResult;

/**
 * A router with no shared store: its own requests go into its core, which decides (a cluster
 * of one). {@link Dispatching} extends it: the dispatcher decides for its own requests as a
 * replica alone does, and serves the other replicas besides.
 */
class Alone implements ReplicaRole {

    protected final RoleHost host;

    Alone(RoleHost host) {
        this.host = host;
    }

    @Override
    public boolean decides() {
        return true;
    }

    @Override
    public void submit(InFlight f) {
        try {
            host.core().submit(f);
        } catch (RuntimeException e) {
            host.ownRequests().remove(f.id);
            f.placed.completeExceptionally(e);
        }
    }

    @Override
    public void tokens(InFlight f, int count, long at) {
        host.core().tokens(f, count, at);
    }

    @Override
    public void complete(InFlight f) {
        if (f.retired) {
            host.ownRequests().remove(f.id); // its worker left the layout: released, nothing learned (its tokens were not counted)
            host.core().abort(f);
            return;
        }
        if (f.core == null || !Core.onWorker(f.core)) {
            throw new IllegalStateException("request " + f.id + " is " + (f.core == null ? "unknown to the core"
                    : f.core.phase()) + ", not on a worker: abort it instead of completing it");
        }
        host.ownRequests().remove(f.id);
        host.core().complete(f);
    }

    @Override
    public void abort(InFlight f) {
        host.core().abort(f);
    }

    @Override
    public void step(CompletableFuture<StepResult> answer) {
        try {
            answer.complete(host.step(true));
        } catch (RuntimeException e) {
            answer.completeExceptionally(e);
        }
    }

    @Override
    public void askStep() {
        host.steps().want();
    }

    @Override
    public void marked(int g, String workerId, boolean up) {
        host.core().applyAvailability(g);
    }

    @Override
    public void drain(int g, String workerId, boolean draining) {
        host.core().applyDrain(workerId, draining);
    }

    @Override
    public void relaid(WorkerLayout before, WorkerLayout next) {
        host.core().relaid(before, next);
    }

    @Override
    public long untilDue(long now) {
        return Long.MAX_VALUE;
    }

    @Override
    public void runTimers(long now) {
    }

    @Override
    public void receive(String from, Frames.Reader r, byte[] frame) {
        // no cluster: nobody to hear from
    }

    /** Each member's share of the core, oldest member first (the dispatcher's, or a cluster of one's). */
    @Override
    public List<ReplicaShare> shares() {
        List<SnapshotStore.Member> members = host.members();
        List<ReplicaShare> shares = new ArrayList<>(members.size());
        Set<String> named = new HashSet<>();
        for (SnapshotStore.Member m : members) {
            named.add(m.id());
            if (m.id().equals(host.localMember())) {
                shares.add(share(m.id(), m.address(), host.ownRequests()));
            } else {
                Origin o = originOf(m.id());
                shares.add(share(m.id(), m.address(), o == null ? null : o.requests));
            }
        }
        for (Origin o : origins()) {
            if (!named.contains(o.member)) {
                shares.add(share(o.member, "?", o.requests));
            }
        }
        return shares;
    }

    /** A deciding replica is the dispatcher of its cluster (of one, alone). */
    private ReplicaShare share(String member, String address, LongMap<InFlight> requests) {
        return host.core().share(member, address, member.equals(host.localMember()), requests);
    }

    /** The other replicas whose requests are in the core: none alone. */
    Collection<Origin> origins() {
        return List.of();
    }

    Origin originOf(String member) {
        return null;
    }
}
