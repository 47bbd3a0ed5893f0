package org.balanceroute.simulator;

import org.balanceroute.api.PoolView;
import org.balanceroute.core.DecodeLayout;
import org.balanceroute.core.StepCost;

/**
 * The simulated cluster. Validated on construction; a bad value throws
 * {@link IllegalArgumentException} naming the command-line option.
 *
 * @param workers G, DP decode workers ({@code --workers})
 * @param capacity B, running requests per worker ({@code --capacity})
 * @param stepA seconds per KV token of the heaviest worker ({@code --step-a})
 * @param stepB fixed seconds per decode step ({@code --step-b})
 * @param stepC seconds per request in the largest batch ({@code --step-c})
 * @param prefillPerToken prefill seconds per prompt token ({@code --prefill-per-token})
 * @param prefillFixed fixed prefill seconds ({@code --prefill-fixed})
 * @param seed seed of every random choice ({@code --seed})
 * @param layout the decode instances ({@code --groups}, {@code --capacity} per group): each its own
 *     barrier and clock; one group of every worker unless given
 * @param flatView whether every policy sees all workers as one barrier ({@code --policy-view flat},
 *     {@link org.balanceroute.core.Router#viewAsOneBarrier}) while the engine still steps per group
 */
public record SimulationConfig(int workers, int capacity, double stepA, double stepB, double stepC,
        double prefillPerToken, double prefillFixed, long seed, DecodeLayout layout, boolean flatView) {

    public static final int DEFAULT_WORKERS = 8;
    public static final int DEFAULT_CAPACITY = PoolView.DEFAULT_CAPACITY;
    public static final double DEFAULT_STEP_A = 2e-7;
    public static final double DEFAULT_STEP_B = 0.020;

    /** One decode instance of {@code workers} ranks, each of B {@code capacity}: the single barrier. */
    public SimulationConfig(int workers, int capacity, double stepA, double stepB, double stepC,
            double prefillPerToken, double prefillFixed, long seed) {
        this(workers, capacity, stepA, stepB, stepC, prefillPerToken, prefillFixed, seed, null, false);
    }

    public SimulationConfig {
        require(workers >= 1 && workers <= 4096, "--workers", workers, "1..4096");
        require(capacity >= 1 && capacity <= 1_000_000, "--capacity", capacity, "1..1000000");
        if (layout == null) {
            layout = DecodeLayout.single(workers, capacity);
        }
        require(layout.workers() == workers, "--groups", layout, "groups of " + workers + " workers in all");
        require(layout.maxCapacity() == capacity, "--capacity", layout, "at most " + capacity + " per worker");
        requireNonNegative(stepA, "--step-a");
        requireNonNegative(stepB, "--step-b");
        requireNonNegative(stepC, "--step-c");
        requireNonNegative(prefillPerToken, "--prefill-per-token");
        requireNonNegative(prefillFixed, "--prefill-fixed");
        require(stepA > 0 || stepB > 0 || stepC > 0, "--step-b", stepB,
                "> 0 when --step-a and --step-c are 0 (a decode step must take time)");
    }

    public static SimulationConfig defaults() {
        return new SimulationConfig(DEFAULT_WORKERS, DEFAULT_CAPACITY, DEFAULT_STEP_A, DEFAULT_STEP_B, 0, 0, 0, 1);
    }

    /** A cluster of the given decode instances (G_i ranks of B_i each), every other setting as here. */
    public static SimulationConfig of(DecodeLayout layout, double stepA, double stepB, double stepC,
            double prefillPerToken, double prefillFixed, long seed, boolean flatView) {
        for (int i = 0; i < layout.groups(); i++) {
            require(layout.capacityOfGroup(i) <= 1_000_000, "--capacity", layout.capacityOfGroup(i), "1..1000000");
        }
        return new SimulationConfig(layout.workers(), layout.maxCapacity(), stepA, stepB, stepC, prefillPerToken,
                prefillFixed, seed, layout, flatView);
    }

    /** G workers in one decode instance, every other setting as here. */
    public SimulationConfig withWorkers(int g) {
        return new SimulationConfig(g, capacity, stepA, stepB, stepC, prefillPerToken, prefillFixed, seed);
    }

    /** Whether the cluster has several decode instances (barriers). */
    public boolean grouped() {
        return layout.groups() > 1;
    }

    /** The decode step law with this cluster's a, b and c: what a step lasts. */
    public StepCost stepCost() {
        return new StepCost(stepA, stepB, stepC);
    }

    /** Seconds the prefill tier takes for a prompt. */
    public double prefillSeconds(int promptTokens) {
        return prefillFixed + prefillPerToken * promptTokens;
    }

    private static void requireNonNegative(double v, String option) {
        require(v >= 0 && Double.isFinite(v), option, v, ">= 0");
    }

    private static void require(boolean ok, String option, Object value, String range) {
        if (!ok) {
            throw new IllegalArgumentException(option + " must be " + range + ", got " + value);
        }
    }
}
