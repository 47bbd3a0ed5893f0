package org.balanceroute.simulator;

import java.util.Locale;

/**
 * How N proxy replicas in front of one DP decode tier share what they know (see
 * {@link ReplicaSimulation} for what each delays by the sync delay D).
 */
public enum ReplicasMode {

    /**
     * The oldest replica runs the one router over every replica's requests; the others forward
     * their requests' events to it and get placements back, each way D late. What the live
     * cluster runs.
     */
    DISPATCHER,

    /**
     * Every replica runs its own router over its own pool and sees the other replicas'
     * requests as they were D ago: they can fill the same free slots before a booking propagates.
     */
    GOSSIP,

    /** N plain proxies: each router sees only its own replica's requests. */
    INDEPENDENT;

    /** The name on the command line and in {@code --json}: {@code dispatcher}, {@code gossip}, {@code independent}. */
    public String optionValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @throws IllegalArgumentException naming {@code --cluster-mode} and the three values
     */
    public static ReplicasMode parse(String value) {
        for (ReplicasMode m : values()) {
            if (m.optionValue().equals(value.trim())) {
                return m;
            }
        }
        throw new IllegalArgumentException("--cluster-mode must be one of dispatcher, gossip, independent, got '"
                + value + "'");
    }
}
