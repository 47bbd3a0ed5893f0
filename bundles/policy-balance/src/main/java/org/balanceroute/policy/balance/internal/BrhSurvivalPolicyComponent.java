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
 * Registers BR-H with the survival predictor ({@link BalancePolicy#brh}) as a
 * {@link RoutingPolicy} service with {@code balanceroute.policy=brh-survival}, configured by the
 * shared PID {@value BalanceProperties#PID} (named by its {@code balanceroute.policy.pid} property).
 * Its predictor is the {@link TerminationPredictor} service with
 * {@code balanceroute.predictor=survival} (a static, mandatory reference: without that predictor the
 * policy is not registered). The predictor is shared with the router, which teaches
 * it every completion whatever policy is active. Called only from the router's single dispatch
 * thread.
 */
@Component(name = "org.balanceroute.policy.balance.brh.survival", configurationPid = BalanceProperties.PID,
        service = RoutingPolicy.class,
        property = {RoutingPolicy.NAME_PROPERTY + "=" + BalancePolicy.BRH_SURVIVAL,
            RoutingPolicy.CONFIG_PID_PROPERTY + "=" + BalanceProperties.PID})
public final class BrhSurvivalPolicyComponent extends BalancePolicyAdapter {

    static final String LABEL = "survival";
    static final String PREDICTOR_FILTER = "(" + TerminationPredictor.NAME_PROPERTY + "=survival)";

    @Activate
    public BrhSurvivalPolicyComponent(Map<String, Object> properties,
            @Reference(name = "survivalPredictor", target = PREDICTOR_FILTER) TerminationPredictor predictor) {
        super(BalancePolicy.BRH_SURVIVAL, properties,
                settings -> BalancePolicy.brh(LABEL, settings, predictor));
    }
}
