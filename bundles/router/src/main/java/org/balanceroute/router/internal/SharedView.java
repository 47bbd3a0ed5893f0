package org.balanceroute.router.internal;

import java.util.ArrayList;
import java.util.List;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.router.ReplicaShare;

/**
 * The cluster view the dispatcher broadcasts to the other replicas: the totals per worker (the
 * sum over every replica's requests), the pool, the policy in force, and each member's share.
 * Immutable; read by a follower's API calls from any thread.
 *
 * <p>VIEW body: {@code step:long capacity:int workers:int poolDepth:int policy:string
 * stepNanos:long layout:long} (the dispatcher's {@link WorkerLayout#fingerprint}, 0 before its
 * first layout: a follower with the same one numbers the workers alike), per worker
 * {@code load:long running:int queued:int available:byte group:int capacity:int draining:byte}, then
 * {@code members:int} and per member {@code id:string address:string pooled:int} and per worker
 * {@code load:long running:int queued:int}.
 */
record SharedView(String dispatcher, PoolSnapshot totals, String activePolicy, long observedStepNanos,
        long layoutFingerprint, List<ReplicaShare> shares, long receivedAtNanos) {

    static void write(Frames.Writer w, PoolSnapshot totals, String policy, long stepNanos, long layoutFingerprint,
            List<ReplicaShare> shares) {
        int g = totals.workers();
        long[] loads = totals.loads();
        int[] running = totals.running();
        int[] queued = totals.queued();
        boolean[] available = totals.available();
        int[] groups = totals.groups();
        int[] capacities = totals.capacities();
        boolean[] draining = totals.draining();
        w.putLong(totals.step()).putInt(totals.capacity()).putInt(g).putInt(totals.poolDepth()).putString(policy)
                .putLong(stepNanos).putLong(layoutFingerprint);
        for (int i = 0; i < g; i++) {
            w.putLong(loads[i]).putInt(running[i]).putInt(queued[i]).putByte(available[i] ? 1 : 0)
                    .putInt(groups[i]).putInt(capacities[i]).putByte(draining[i] ? 1 : 0);
        }
        w.putInt(shares.size());
        for (ReplicaShare s : shares) {
            w.putString(s.member()).putString(s.address()).putInt(s.pooled());
            long[] l = s.loads();
            int[] r = s.running();
            int[] q = s.queued();
            for (int i = 0; i < g; i++) {
                w.putLong(i < l.length ? l[i] : 0).putInt(i < r.length ? r[i] : 0).putInt(i < q.length ? q[i] : 0);
            }
        }
    }

    /** Reads a VIEW body; the shares' dispatcher flag is set for {@code dispatcher}. */
    static SharedView read(Frames.Reader r, String dispatcher, long receivedAtNanos) {
        long step = r.getLong();
        int capacity = r.getInt();
        int g = r.getCount(26);
        int poolDepth = r.getInt();
        String policy = r.getString();
        long stepNanos = r.getLong();
        long layout = r.getLong();
        long[] loads = new long[g];
        int[] running = new int[g];
        int[] queued = new int[g];
        boolean[] available = new boolean[g];
        int[] groups = new int[g];
        int[] capacities = new int[g];
        boolean[] draining = new boolean[g];
        for (int i = 0; i < g; i++) {
            loads[i] = r.getLong();
            running[i] = r.getInt();
            queued[i] = r.getInt();
            available[i] = r.getByte() != 0;
            groups[i] = r.getInt();
            capacities[i] = r.getInt();
            draining[i] = r.getByte() != 0;
        }
        int n = r.getCount(12);
        List<ReplicaShare> shares = new ArrayList<>(n);
        for (int m = 0; m < n; m++) {
            String id = r.getString();
            String address = r.getString();
            int pooled = r.getInt();
            long[] l = new long[g];
            int[] run = new int[g];
            int[] q = new int[g];
            for (int i = 0; i < g; i++) {
                l[i] = r.getLong();
                run[i] = r.getInt();
                q[i] = r.getInt();
            }
            shares.add(new ReplicaShare(id, address, id.equals(dispatcher), pooled, l, run, q));
        }
        PoolSnapshot totals = new PoolSnapshot(dispatcher, step, receivedAtNanos, capacity, loads, running, queued,
                poolDepth, available, groups, capacities, draining);
        return new SharedView(dispatcher, totals, policy, stepNanos, layout, List.copyOf(shares), receivedAtNanos);
    }
}
