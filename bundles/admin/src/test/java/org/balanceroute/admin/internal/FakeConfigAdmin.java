package org.balanceroute.admin.internal;

import java.lang.reflect.Proxy;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * An in-memory ConfigurationAdmin: configurations by PID, a log of the updates made, and
 * listeners told of each update (as the components that consume a PID would be).
 */
final class FakeConfigAdmin {

    final Map<String, Hashtable<String, Object>> stored = new HashMap<>();
    final Map<String, Map<String, Object>> updates = new LinkedHashMap<>();
    final List<BiConsumer<String, Map<String, Object>>> listeners = new CopyOnWriteArrayList<>();

    void put(String pid, Map<String, Object> properties) {
        Hashtable<String, Object> t = new Hashtable<>(properties);
        t.put("service.pid", pid);
        stored.put(pid, t);
    }

    /** The factory configuration {@code FACTORY~NAME}, as FileInstall makes it from {@code FACTORY-NAME.cfg}. */
    void putFactory(String factoryPid, String name, Map<String, Object> properties) {
        Map<String, Object> p = new HashMap<>(properties);
        p.put("service.factoryPid", factoryPid);
        put(factoryPid + "~" + name, p);
    }

    ConfigurationAdmin service() {
        return (ConfigurationAdmin) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ConfigurationAdmin.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getConfiguration" -> configuration((String) args[0]);
                    case "listConfigurations" -> {
                        String filter = (String) args[0];
                        String factory = "(service.factoryPid=";
                        if (filter.startsWith(factory)) {
                            String f = filter.substring(factory.length(), filter.length() - 1);
                            Configuration[] found = stored.entrySet().stream()
                                    .filter(e -> f.equals(e.getValue().get("service.factoryPid")))
                                    .map(e -> configuration(e.getKey())).toArray(Configuration[]::new);
                            yield found.length == 0 ? null : found;
                        }
                        String pid = filter.substring("(service.pid=".length(), filter.length() - 1);
                        yield stored.containsKey(pid) ? new Configuration[] {configuration(pid)} : null;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private Configuration configuration(String pid) {
        return (Configuration) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Configuration.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getPid" -> pid;
                    case "getProperties" -> stored.containsKey(pid) ? new Hashtable<>(stored.get(pid)) : null;
                    case "update", "updateIfDifferent" -> {
                        @SuppressWarnings("unchecked")
                        Dictionary<String, Object> d = (Dictionary<String, Object>) args[0];
                        Hashtable<String, Object> t = new Hashtable<>();
                        for (var keys = d.keys(); keys.hasMoreElements(); ) {
                            String k = keys.nextElement();
                            t.put(k, d.get(k));
                        }
                        t.put("service.pid", pid);
                        stored.put(pid, t);
                        updates.put(pid, new HashMap<>(t));
                        listeners.forEach(l -> l.accept(pid, Map.copyOf(t)));
                        yield method.getName().equals("updateIfDifferent") ? Boolean.TRUE : null;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
