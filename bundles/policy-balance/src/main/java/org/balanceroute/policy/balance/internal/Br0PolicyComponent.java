package org.balanceroute.policy.balance.internal;

import java.util.Map;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceProperties;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.metatype.annotations.Designate;

/**
 * Registers BR-0 ({@link BalancePolicy#br0}) as a {@link RoutingPolicy} service with
 * {@code balanceroute.policy=br0}, configured by the shared PID {@value BalanceProperties#PID}
 * (it uses sGreedy and rMax), which its {@code balanceroute.policy.pid} property names. Called
 * only from the router's single dispatch thread. This component also carries the metatype
 * description of that shared PID.
 */
@Component(name = "org.balanceroute.policy.balance.br0", configurationPid = BalanceProperties.PID,
        service = RoutingPolicy.class, property = {RoutingPolicy.NAME_PROPERTY + "=" + BalancePolicy.BR0,
            RoutingPolicy.CONFIG_PID_PROPERTY + "=" + BalanceProperties.PID})
@Designate(ocd = BalanceConfig.class)
public final class Br0PolicyComponent extends BalancePolicyAdapter {

    @Activate
    public Br0PolicyComponent(Map<String, Object> properties) {
        super(BalancePolicy.BR0, properties, BalancePolicy::br0);
    }
}
