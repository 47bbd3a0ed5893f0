package org.balanceroute.admin.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.balanceroute.api.RoutingPolicy;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The schemas of the registered policies, read from the MetaType service: for each
 * {@link RoutingPolicy} service, the PID its {@value RoutingPolicy#CONFIG_PID_PROPERTY} property
 * names, and the object class definition its own bundle's metatype designates for that PID, so a
 * policy bundle dropped into {@code deploy/} brings its tunables with it. The attributes' min and
 * max come from the same metatype documents ({@link MetatypeRanges}). Schemas are kept per
 * (bundle, PID) and read again when the bundle is updated (its last-modified time changes).
 *
 * <p>Tracks service references only (it never gets the policies), through a dynamic reference,
 * so policies come and go freely. Thread-safe.
 */
@Component(service = PolicySchemas.class)
public final class MetaTypeSchemas implements PolicySchemas {

    private static final Logger LOG = LoggerFactory.getLogger(MetaTypeSchemas.class);

    private record Key(long bundleId, String pid) {
    }

    /** A schema read from the bundle as it was at {@code lastModified}. */
    private record Read(long lastModified, List<Tunable> tunables) {
    }

    private final MetaTypeService metaType;
    private final Map<Key, Read> cache = new ConcurrentHashMap<>();

    /** The registered policies; replaced whole by the framework on every change. */
    @Reference(service = RoutingPolicy.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY,
            target = "(" + RoutingPolicy.NAME_PROPERTY + "=*)")
    volatile List<ServiceReference<RoutingPolicy>> policies = List.of();

    @Activate
    public MetaTypeSchemas(@Reference(name = "metaType") MetaTypeService metaType) {
        this.metaType = metaType;
    }

    @Override
    public Map<String, PolicySchema> byName() {
        Map<String, ServiceReference<RoutingPolicy>> best = new TreeMap<>();
        for (ServiceReference<RoutingPolicy> ref : List.copyOf(policies)) {
            String name = text(ref.getProperty(RoutingPolicy.NAME_PROPERTY));
            if (name != null) {
                best.merge(name, ref, (a, b) -> a.compareTo(b) >= 0 ? a : b); // the framework's ranking order
            }
        }
        Map<String, PolicySchema> out = new TreeMap<>();
        best.forEach((name, ref) -> {
            String pid = text(ref.getProperty(RoutingPolicy.CONFIG_PID_PROPERTY));
            Bundle bundle = ref.getBundle();
            if (bundle != null) { // null: unregistered meanwhile
                out.put(name, new PolicySchema(name, pid, pid == null ? List.of() : schema(name, bundle, pid)));
            }
        });
        return Collections.unmodifiableMap(out);
    }

    /** The tunables the bundle's metatype describes for the PID, in its order. */
    List<Tunable> schema(String policy, Bundle bundle, String pid) {
        long lastModified = bundle.getLastModified();
        return cache.compute(new Key(bundle.getBundleId(), pid), (k, old) -> old != null
                && old.lastModified() == lastModified ? old : new Read(lastModified, read(policy, bundle, pid))).tunables();
    }

    private List<Tunable> read(String policy, Bundle bundle, String pid) {
        MetaTypeInformation info = metaType.getMetaTypeInformation(bundle);
        ObjectClassDefinition ocd = null;
        try {
            ocd = info == null ? null : info.getObjectClassDefinition(pid, null);
        } catch (IllegalArgumentException e) {
            // not a PID this bundle describes
        }
        AttributeDefinition[] ads = ocd == null ? null : ocd.getAttributeDefinitions(ObjectClassDefinition.ALL);
        if (ads == null) {
            LOG.warn("admin: policy {} reads configuration {}, which the metatype of its bundle {} does not describe;"
                    + " it is listed without parameters", policy, pid, bundle.getSymbolicName());
            return List.of();
        }
        Map<String, MetatypeRanges.Range> ranges = MetatypeRanges.of(bundle, pid);
        List<Tunable> tunables = new ArrayList<>(ads.length);
        for (AttributeDefinition ad : ads) {
            MetatypeRanges.Range r = ranges.getOrDefault(ad.getID(), new MetatypeRanges.Range(null, null));
            tunables.add(Tunable.of(ad, r.min(), r.max()));
        }
        return List.copyOf(tunables);
    }

    private static String text(Object property) {
        return property instanceof String s && !s.isBlank() ? s.trim() : null;
    }
}
