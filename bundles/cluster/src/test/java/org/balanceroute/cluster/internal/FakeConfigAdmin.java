package org.balanceroute.cluster.internal;

import java.lang.reflect.Proxy;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * An in-memory ConfigurationAdmin (modelled on the admin bundle's): configurations by PID, a log
 * of the updates, and the update events delivered asynchronously on a thread of its own, as
 * ConfigAdmin delivers them to ConfigurationListeners.
 */
final class FakeConfigAdmin implements AutoCloseable {

    record Update(String pid, Map<String, Object> properties, long nanos) {
    }

    final Map<String, Hashtable<String, Object>> stored = new ConcurrentHashMap<>();
    final List<Update> updates = new CopyOnWriteArrayList<>();
    volatile Consumer<String> listener = pid -> { };
    private final ExecutorService events = Executors.newSingleThreadExecutor();

    /** Sets a PID's properties as an operator's change would (an update, its event). */
    void change(String pid, Map<String, Object> properties) {
        try {
            configuration(pid).update(new Hashtable<>(properties));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A PID's properties as FileInstall would have loaded them from a file, without an event. */
    void file(String pid, Map<String, Object> properties) {
        Hashtable<String, Object> t = new Hashtable<>(properties);
        t.put("service.pid", pid);
        t.put(ConfigCodec.FILEINSTALL_FILENAME, "file:/replica/config/" + pid + ".cfg");
        stored.put(pid, t);
    }

    Map<String, Object> get(String pid) {
        Hashtable<String, Object> t = stored.get(pid);
        return t == null ? null : Map.copyOf(t);
    }

    long updatesOf(String pid) {
        return updates.stream().filter(u -> u.pid().equals(pid)).count();
    }

    ConfigurationAdmin service() {
        return (ConfigurationAdmin) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ConfigurationAdmin.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getConfiguration" -> configuration((String) args[0]);
                    case "listConfigurations" -> {
                        String filter = (String) args[0];
                        String pid = filter.substring("(service.pid=".length(), filter.length() - 1);
                        yield stored.containsKey(pid) ? new Configuration[] {configuration(pid)} : null;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    boolean awaitEvents(java.time.Duration bound) throws InterruptedException {
        try {
            events.submit(() -> { }).get(bound.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return false;
        }
    }

    @Override
    public void close() {
        events.shutdownNow();
    }

    private Configuration configuration(String pid) {
        return (Configuration) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Configuration.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getPid" -> pid;
                    case "getFactoryPid" -> null;
                    case "getProperties" -> stored.containsKey(pid) ? new Hashtable<>(stored.get(pid)) : null;
                    case "update" -> {
                        @SuppressWarnings("unchecked")
                        Dictionary<String, Object> d = (Dictionary<String, Object>) args[0];
                        Hashtable<String, Object> t = new Hashtable<>();
                        for (var keys = d.keys(); keys.hasMoreElements(); ) {
                            String k = keys.nextElement();
                            t.put(k, d.get(k));
                        }
                        t.put("service.pid", pid);
                        stored.put(pid, t);
                        updates.add(new Update(pid, Map.copyOf(t), System.nanoTime()));
                        events.execute(() -> listener.accept(pid));
                        yield null;
                    }
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
