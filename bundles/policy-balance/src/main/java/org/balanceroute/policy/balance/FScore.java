package org.balanceroute.policy.balance;

/**
 * BR-0's piecewise-linear score. Assigning a set Q with Delta(Q) prompt tokens to worker g,
 * whose safe margin is m_g = M - L_g, changes the total imbalance I = G*M - sum L by -F:
 *
 * <pre>
 *   F_g(Q) = Delta - G * max(0, Delta - m_g)
 * </pre>
 *
 * Safe regime (Delta <= m_g): every token fills one token of deficit, F = Delta. Overflow: every
 * token past the margin raises the barrier for all G workers, so it costs G - 1 tokens of
 * imbalance: F = G*m_g - (G-1)*Delta. F is continuous at Delta = m_g and peaks there.
 */
public final class FScore {

    private FScore() {
    }

    public static long br0(long delta, long margin, int workers) {
        return delta - workers * Math.max(0, delta - margin);
    }
}
