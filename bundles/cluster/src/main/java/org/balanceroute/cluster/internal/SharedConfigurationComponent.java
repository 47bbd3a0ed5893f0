package org.balanceroute.cluster.internal;

import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.cm.ConfigurationEvent;
import org.osgi.service.cm.ConfigurationListener;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * Makes the {@code sharedPids} of PID {@value ClusterSettings#PID} cluster-wide while this
 * replica's member is up ({@link SharedConfiguration}): active while the {@link RunningMember}
 * service is registered, and a {@link ConfigurationListener} for the local changes. A new member
 * (a reconfiguration) is a new activation, which reconciles again.
 */
@Component(service = ConfigurationListener.class, immediate = true)
public final class SharedConfigurationComponent implements ConfigurationListener {

    private final SharedConfiguration shared;

    @Activate
    public SharedConfigurationComponent(@Reference RunningMember member, @Reference ConfigurationAdmin configurationAdmin) {
        shared = new SharedConfiguration(member.instance(), configurationAdmin, member.settings().sharedPids());
        shared.start();
    }

    @Override
    public void configurationEvent(ConfigurationEvent event) {
        if (event.getType() == ConfigurationEvent.CM_UPDATED && event.getFactoryPid() == null) {
            shared.localChanged(event.getPid());
        }
    }

    @Deactivate
    void deactivate() {
        shared.stop();
    }
}
