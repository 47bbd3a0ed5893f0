package org.balanceroute.policy.balance.internal;

import java.util.Map;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceProperties;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * Registers BR-H with the exact-match predictor ({@link BalancePolicy#brh}) as a
 * {@link RoutingPolicy} service with {@code balanceroute.policy=brh-exact}, configured by the
 * shared PID {@value BalanceProperties#PID} (named by its {@code balanceroute.policy.pid} property).
 * Its predictor is the {@link TerminationPredictor} service with
 * {@code balanceroute.predictor=exact-match} (a static, mandatory reference: without that predictor the
 * policy is not registered). The predictor is shared with the router, which teaches
 * it every completion whatever policy is active. Called only from the router's single dispatch
 * thread.
 */
@Component(name = "org.balanceroute.policy.balance.brh.exact", configurationPid = BalanceProperties.PID,
        service = RoutingPolicy.class,
        property = {RoutingPolicy.NAME_PROPERTY + "=" + BalancePolicy.BRH_EXACT,
            RoutingPolicy.CONFIG_PID_PROPERTY + "=" + BalanceProperties.PID})
public final class BrhExactPolicyComponent extends BalancePolicyAdapter {

    static final String LABEL = "exact";
    static final String PREDICTOR_FILTER = "(" + TerminationPredictor.NAME_PROPERTY + "=exact-match)";

    @Activate
    public BrhExactPolicyComponent(Map<String, Object> properties,
            @Reference(name = "exactPredictor", target = PREDICTOR_FILTER) TerminationPredictor predictor) {
        super(BalancePolicy.BRH_EXACT, properties,
                settings -> BalancePolicy.brh(LABEL, settings, predictor));
    }
}
