package org.balanceroute.admin.internal;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.felix.metatype.DefaultMetaTypeProvider;
import org.apache.felix.metatype.MetaData;
import org.apache.felix.metatype.MetaDataReader;
import org.balanceroute.api.RoutingPolicy;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * A shipped bundle as the runtime sees it, without a framework: its entries (from the jar or the
 * classes directory a class of it was loaded from), its metatype read by Felix's own reader and
 * served as Felix's MetaType service would (real {@code AttributeDefinition}s with Felix's
 * validation), and its {@link RoutingPolicy} services as its Declarative Services descriptions
 * register them (their properties, so the name and PID each component declares).
 */
final class ShippedBundle {

    private static final AtomicLong IDS = new AtomicLong(100);

    final Bundle bundle;
    private final Path root;
    private final List<DefaultMetaTypeProvider> metatypes = new ArrayList<>();

    /** The bundle that contains {@code member}. */
    static ShippedBundle of(Class<?> member) {
        try {
            return new ShippedBundle(Path.of(member.getProtectionDomain().getCodeSource().getLocation().toURI()));
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private ShippedBundle(Path root) {
        this.root = root;
        long id = IDS.incrementAndGet();
        this.bundle = (Bundle) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Bundle.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "findEntries" -> entries((String) args[0], (String) args[1]);
                    case "getBundleId" -> id;
                    case "getLastModified" -> 0L;
                    case "getState" -> Bundle.ACTIVE;
                    case "getSymbolicName" -> root.getFileName().toString();
                    case "getHeaders" -> new Hashtable<String, String>();
                    case "getResource", "getEntry" -> null;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "bundle " + root;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        try {
            for (URL url : Collections.list(entries(MetatypeRanges.DIRECTORY, "*.xml"))) {
                MetaData data = new MetaDataReader().parse(url);
                metatypes.add(new DefaultMetaTypeProvider(bundle, data));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A MetaType service that knows these bundles, as Felix's would. */
    static MetaTypeService metaTypeService(ShippedBundle... bundles) {
        return (MetaTypeService) Proxy.newProxyInstance(ShippedBundle.class.getClassLoader(),
                new Class<?>[] {MetaTypeService.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("getMetaTypeInformation")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    for (ShippedBundle b : bundles) {
                        if (b.bundle == args[0]) {
                            return b.information();
                        }
                    }
                    return null;
                });
    }

    private MetaTypeInformation information() {
        return (MetaTypeInformation) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {MetaTypeInformation.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("getObjectClassDefinition")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    for (DefaultMetaTypeProvider p : metatypes) {
                        ObjectClassDefinition ocd = p.getObjectClassDefinition((String) args[0], (String) args[1]);
                        if (ocd != null) {
                            return ocd;
                        }
                    }
                    throw new IllegalArgumentException("no OCD for " + args[0]); // as Felix does
                });
    }

    /** The RoutingPolicy services its component descriptions register, with their properties. */
    List<ServiceReference<RoutingPolicy>> policies() {
        List<ServiceReference<RoutingPolicy>> refs = new ArrayList<>();
        try {
            for (URL url : Collections.list(entries("OSGI-INF", "*.xml"))) {
                Map<String, Object> properties = new LinkedHashMap<>();
                boolean policy = false;
                try (InputStream in = url.openStream()) {
                    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
                    f.setNamespaceAware(true);
                    Element component = f.newDocumentBuilder().parse(in).getDocumentElement();
                    NodeList props = component.getElementsByTagName("property");
                    for (int i = 0; i < props.getLength(); i++) {
                        Element p = (Element) props.item(i);
                        properties.put(p.getAttribute("name"), p.getAttribute("value"));
                    }
                    NodeList provides = component.getElementsByTagName("provide");
                    for (int i = 0; i < provides.getLength(); i++) {
                        policy |= RoutingPolicy.class.getName().equals(((Element) provides.item(i)).getAttribute("interface"));
                    }
                }
                if (policy) {
                    refs.add(reference(properties, IDS.incrementAndGet()));
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the component descriptions of " + root, e);
        }
        return refs;
    }

    /** A service reference of this bundle with these properties. */
    @SuppressWarnings("unchecked")
    ServiceReference<RoutingPolicy> reference(Map<String, Object> properties, long serviceId) {
        return (ServiceReference<RoutingPolicy>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ServiceReference.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getProperty" -> args[0].equals("service.id") ? serviceId : properties.get(args[0]);
                    case "getBundle" -> bundle;
                    // the framework's order: a lower service id ranks higher (no rankings here)
                    case "compareTo" -> Long.compare((Long) ((ServiceReference<?>) args[0]).getProperty("service.id"),
                            serviceId);
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "service " + properties;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** The URLs of the entries directly under {@code dir} whose names match {@code *.EXT}, or null. */
    private java.util.Enumeration<URL> entries(String dir, String pattern) throws IOException {
        String suffix = pattern.substring(1);
        List<URL> urls = new ArrayList<>();
        if (Files.isDirectory(root)) {
            Path d = root.resolve(dir);
            if (Files.isDirectory(d)) {
                try (Stream<Path> files = Files.list(d)) {
                    for (Path p : (Iterable<Path>) files.sorted()::iterator) {
                        if (Files.isRegularFile(p) && p.getFileName().toString().endsWith(suffix)) {
                            urls.add(p.toUri().toURL());
                        }
                    }
                }
            }
        } else {
            try (JarFile jar = new JarFile(root.toFile())) {
                for (var e : Collections.list(jar.entries())) {
                    String name = e.getName();
                    if (name.startsWith(dir + "/") && name.indexOf('/', dir.length() + 1) < 0 && name.endsWith(suffix)) {
                        urls.add(new URL("jar:" + root.toUri() + "!/" + name));
                    }
                }
            }
            urls.sort(java.util.Comparator.comparing(URL::toString));
        }
        return urls.isEmpty() ? null : Collections.enumeration(urls);
    }

    @Override
    public String toString() {
        return new File(root.toString()).getName();
    }
}
