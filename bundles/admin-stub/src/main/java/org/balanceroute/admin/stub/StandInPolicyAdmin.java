package org.balanceroute.admin.stub;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.balanceroute.admin.PolicyAdmin;
import org.balanceroute.api.RoutingPolicy;
import org.balanceroute.router.RouterService;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;

/**
 * A stand-in {@link PolicyAdmin} for tests (the real one belongs to the admin bundle): each
 * registered policy's PID and schema come from its bundle's metatype (the PID its service was
 * configured from, its component name, or the bundle's only one), values are checked with the
 * metatype's own {@code validate}, written through ConfigAdmin, and waited for until the router
 * reports them. Ranked low, so that a real implementation wins if both are present.
 */
@Component(service = PolicyAdmin.class, property = "service.ranking:Integer=-1000")
public final class StandInPolicyAdmin implements PolicyAdmin {

    private static final String FILEINSTALL_FILENAME = "felix.fileinstall.filename";

    private final RouterService router;
    private final ConfigurationAdmin configs;
    private final MetaTypeService metatype;
    private final BundleContext context;

    @Activate
    public StandInPolicyAdmin(@Reference RouterService router, @Reference ConfigurationAdmin configs,
            @Reference MetaTypeService metatype, BundleContext context) {
        this.router = router;
        this.configs = configs;
        this.metatype = metatype;
        this.context = context;
    }

    @Override
    public String activePolicy() {
        return router.activePolicy();
    }

    private record Schema(String pid, List<AttributeDefinition> attributes) {
    }

    private Schema schema(String policy) {
        try {
            var refs = context.getServiceReferences(RoutingPolicy.class, "(" + RoutingPolicy.NAME_PROPERTY + "=" + policy + ")");
            for (ServiceReference<RoutingPolicy> ref : refs) {
                MetaTypeInformation info = metatype.getMetaTypeInformation(ref.getBundle());
                if (info == null || info.getPids() == null || info.getPids().length == 0) {
                    continue;
                }
                List<String> pids = Arrays.asList(info.getPids());
                String pid = null;
                Object servicePid = ref.getProperty("service.pid");
                for (Object p : servicePid instanceof String[] a ? a : new Object[] {servicePid}) {
                    if (p != null && pids.contains(p.toString())) {
                        pid = p.toString();
                    }
                }
                Object name = ref.getProperty("component.name");
                if (pid == null && name != null && pids.contains(name.toString())) {
                    pid = name.toString();
                }
                if (pid == null && pids.size() == 1) {
                    pid = pids.get(0);
                }
                if (pid != null) {
                    ObjectClassDefinition ocd = info.getObjectClassDefinition(pid, null);
                    AttributeDefinition[] ads = ocd.getAttributeDefinitions(ObjectClassDefinition.ALL);
                    return new Schema(pid, ads == null ? List.of() : List.of(ads));
                }
            }
        } catch (InvalidSyntaxException | RuntimeException e) {
            // no schema
        }
        return new Schema(null, List.of());
    }

    private static String type(int t) {
        return switch (t) {
            case AttributeDefinition.INTEGER, AttributeDefinition.SHORT, AttributeDefinition.BYTE -> "integer";
            case AttributeDefinition.LONG -> "long";
            case AttributeDefinition.DOUBLE, AttributeDefinition.FLOAT -> "number";
            case AttributeDefinition.BOOLEAN -> "boolean";
            default -> "string";
        };
    }

    private static Object typed(String type, String text) {
        try {
            return switch (type) {
                case "integer" -> Integer.valueOf(text.trim());
                case "long" -> Long.valueOf(text.trim());
                case "number" -> Double.valueOf(text.trim());
                case "boolean" -> Boolean.valueOf(text.trim());
                default -> text;
            };
        } catch (NumberFormatException e) {
            return text;
        }
    }

    @Override
    public List<PolicyDescription> policies() {
        List<PolicyDescription> out = new ArrayList<>();
        for (String name : router.availablePolicies()) {
            Schema s = schema(name);
            List<ParameterDescription> params = new ArrayList<>();
            for (AttributeDefinition ad : s.attributes()) {
                String type = type(ad.getType());
                String[] d = ad.getDefaultValue();
                Map<String, String> options = new LinkedHashMap<>();
                if (ad.getOptionLabels() != null && ad.getOptionValues() != null) {
                    for (int i = 0; i < ad.getOptionLabels().length; i++) {
                        options.put(ad.getOptionLabels()[i], ad.getOptionValues()[i]);
                    }
                }
                params.add(new ParameterDescription(ad.getID(), ad.getName(), ad.getDescription(), type,
                        d == null || d.length == 0 ? null : typed(type, d[0]), null, null, options));
            }
            out.add(new PolicyDescription(name, s.pid(), params, router.policyParameters(name)));
        }
        return out;
    }

    @Override
    public ChangeResult change(String policy, Map<String, Object> parameters, Duration wait)
            throws InvalidChangeException {
        List<String> available = router.availablePolicies();
        if (!available.contains(policy)) {
            throw new InvalidChangeException("unknown policy '" + policy + "'; available: " + available, "policy");
        }
        Schema s = schema(policy);
        Map<String, Object> values = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : parameters.entrySet()) {
            AttributeDefinition ad = s.attributes().stream().filter(a -> a.getID().equals(e.getKey())).findFirst()
                    .orElseThrow(() -> new InvalidChangeException("'" + e.getKey() + "' is not a parameter of " + policy,
                            e.getKey()));
            String text = String.valueOf(e.getValue());
            String problem = ad.validate(text);
            if (problem != null && !problem.isEmpty()) {
                throw new InvalidChangeException(e.getKey() + " = " + text + " refused: " + problem.replace("%", "")
                        + " (" + ad.getDescription() + ")", e.getKey());
            }
            values.put(e.getKey(), typed(type(ad.getType()), text));
        }
        try {
            if (!values.isEmpty()) {
                write(s.pid(), values);
            }
            write(RouterService.PID, Map.of("policy", policy));
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the configuration: " + e.getMessage(), e);
        }
        long deadline = System.nanoTime() + wait.toNanos();
        boolean applied;
        while (!(applied = inForce(policy, values)) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        String active = router.activePolicy();
        return new ChangeResult(applied, active, router.policyParameters(active),
                applied ? "in force" : "written, not yet in force after " + wait.toMillis() + " ms");
    }

    private boolean inForce(String policy, Map<String, Object> values) {
        if (!router.activePolicy().equals(policy)) {
            return false;
        }
        Map<String, Object> now = router.policyParameters(policy);
        for (Map.Entry<String, Object> e : values.entrySet()) {
            Object v = now.get(e.getKey());
            boolean same = v instanceof Number a && e.getValue() instanceof Number b ? a.doubleValue() == b.doubleValue()
                    : String.valueOf(v).equals(String.valueOf(e.getValue()));
            if (!same) {
                return false;
            }
        }
        return true;
    }

    private void write(String pid, Map<String, Object> values) throws IOException {
        Configuration c = configs.getConfiguration(pid, "?");
        Dictionary<String, Object> current = c.getProperties();
        Hashtable<String, Object> next = new Hashtable<>();
        if (current != null) {
            for (var keys = current.keys(); keys.hasMoreElements(); ) {
                String k = keys.nextElement();
                next.put(k, current.get(k));
            }
        }
        boolean fromFile = next.containsKey(FILEINSTALL_FILENAME);
        values.forEach((k, v) -> next.put(k, fromFile ? String.valueOf(v) : v));
        c.updateIfDifferent(next);
    }
}
