package org.balanceroute.router.internal;

import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.baseline.JoinShortestQueuePolicy;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Configuration of the router component, PID {@value org.balanceroute.router.RouterService#PID}. */
@ObjectClassDefinition(name = "BalanceRoute router",
        description = "The dispatch loop: which routing policy is active, the fallback and the stepping "
                + "mode (the decode workers, their instances and each instance's capacity B come from the pool's "
                + "topology, not from here). An invalid value is rejected with an error in the log, and the "
                + "previous configuration stays in force (at start, the router does not start).")
@interface RouterConfig {

    // the policy bundles' own names (compile-time constants: no package import at runtime)
    String DEFAULT_POLICY = BalancePolicy.BR0;
    String DEFAULT_FALLBACK_POLICY = JoinShortestQueuePolicy.NAME;
    long DEFAULT_STEP_INTERVAL_MILLIS = 0;
    long MAX_STEP_INTERVAL_MILLIS = 60_000;

    @AttributeDefinition(name = "Policy",
            description = "Name of the active routing policy (the balanceroute.policy property of a "
                    + "RoutingPolicy service): random, round-robin, p2c, jsq, least-tokens, vllm-ascend, "
                    + "br0, br0-bypass, brh-survival, brh-exact, or a policy bundle's own. Non-empty; default br0.")
    String policy() default DEFAULT_POLICY;

    @AttributeDefinition(name = "Fallback policy",
            description = "Policy used while the configured one is not registered (its bundle removed "
                    + "or not installed). Non-empty; default jsq.")
    String fallbackPolicy() default DEFAULT_FALLBACK_POLICY;

    @AttributeDefinition(name = "Step interval (ms)", min = "0", max = "60000",
            description = "0: a dispatch step runs when asked (the proxy asks after each arrival and "
                    + "release), paced by the decode step cadence observed in the token streams. > 0: "
                    + "the router also runs a dispatch step by itself every that many milliseconds (the "
                    + "proxy then asks for none). Integer in [0, 60000]; default 0.")
    long stepIntervalMillis() default DEFAULT_STEP_INTERVAL_MILLIS;
}
