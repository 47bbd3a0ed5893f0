package org.balanceroute.enginesim.internal;

/**
 * Wall seconds per modelled second, shared by the step loop, the prefill servers and the ground
 * truth; set at start ({@code --time-factor}) and changeable while the cluster runs ({@code POST
 * /sim/timing}), so one cluster can serve a near-zero-time overhead benchmark and then a loaded
 * replay. A step or prefill already under way keeps the factor it started with.
 */
public final class TimeFactor {

    private volatile double value;

    TimeFactor(double value) {
        set(value);
    }

    public double get() {
        return value;
    }

    /** @throws IllegalArgumentException unless finite and > 0 */
    public void set(double v) {
        if (!(v > 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException("timeFactor must be a finite number > 0, got " + v);
        }
        value = v;
    }
}
