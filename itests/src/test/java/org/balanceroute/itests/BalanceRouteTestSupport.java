package org.balanceroute.itests;

import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.cleanCaches;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import javax.inject.Inject;
import org.balanceroute.router.RouterService;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.options.UrlProvisionOption;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Boots the distribution's own bundle set (boot/ at start level 1, bundle/ at 2, its config/
 * watched by FileInstall from a scratch copy) in a native Felix, once per test class, with the
 * HTTP port on a free local port. Waits on conditions, never on fixed sleeps.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public abstract class BalanceRouteTestSupport {

    static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Inject
    protected BundleContext context;

    @Inject
    protected ConfigurationAdmin configurationAdmin;

    @Inject
    protected RouterService router;

    @Configuration
    public Option[] configuration() throws IOException {
        Path dist = Path.of(System.getProperty("balanceroute.dist.dir"));
        List<Option> options = new ArrayList<>();
        for (File jar : jars(dist.resolve("boot"))) {
            options.add(provision(jar, 1));
        }
        for (File jar : jars(dist.resolve("bundle"))) {
            options.add(provision(jar, 2));
        }
        Path config = Files.createTempDirectory("balanceroute-itest-config");
        try (Stream<Path> files = Files.list(dist.resolve("config"))) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, config.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        String port = Integer.toString(freePort());
        options.addAll(List.of(
                junitBundles(),
                cleanCaches(true),
                systemProperty("org.osgi.service.http.port").value(port),
                systemProperty("org.apache.felix.http.host").value("127.0.0.1"),
                systemProperty("balanceroute.itest.port").value(port),
                systemProperty("felix.fileinstall.dir").value(config.toString()),
                systemProperty("felix.fileinstall.poll").value("200"),
                systemProperty("felix.fileinstall.noInitialDelay").value("true"),
                // The files seed the configuration; tests then update ConfigAdmin in quick
                // succession. Written back, an update's file could be read by the next poll after
                // a newer update and put the older values back (lost updates, seen in CI).
                systemProperty("felix.fileinstall.enableConfigSave").value("false"),
                systemProperty("balanceroute.example.bundle").value(System.getProperty("balanceroute.example.bundle")),
                systemProperty("org.ops4j.pax.url.mvn.localRepository")
                        .value(System.getProperty("org.ops4j.pax.url.mvn.localRepository", "")),
                systemProperty("hazelcast.phone.home.enabled").value("false")));
        return options.toArray(Option[]::new);
    }

    /** A bundle at its start level; fragments are installed, never started. */
    private static Option provision(File jar, int startLevel) throws IOException {
        UrlProvisionOption option = bundle(jar.toURI().toString()).startLevel(startLevel);
        try (JarFile j = new JarFile(jar)) {
            boolean fragment = j.getManifest() != null
                    && j.getManifest().getMainAttributes().getValue("Fragment-Host") != null;
            return fragment ? option.noStart() : option;
        }
    }

    private static File[] jars(Path dir) {
        File[] jars = dir.toFile().listFiles((d, name) -> name.endsWith(".jar"));
        assertTrue("no bundles in " + dir + ": build the distribution first (mvn -B install)",
                jars != null && jars.length > 0);
        Arrays.sort(jars);
        return jars;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Polls until the condition holds; fails with the message after {@link #TIMEOUT}. */
    protected static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    /** Polls until the supplier returns the expected value. */
    protected static <T> void awaitEquals(String what, T expected, Supplier<T> actual) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        T last = actual.get();
        while (!expected.equals(last)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + ": expected " + expected + ", last " + last);
            }
            Thread.sleep(20);
            last = actual.get();
        }
    }

    /** Merges properties into a configuration through ConfigAdmin, as an operator's config file edit would. */
    protected void configure(String pid, Object... keyValues) throws IOException {
        org.osgi.service.cm.Configuration c = configurationAdmin.getConfiguration(pid, "?");
        Dictionary<String, Object> props = c.getProperties() == null ? new Hashtable<>() : c.getProperties();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        c.update(props);
    }

    /** The pool {@code default}'s PID ({@code org.balanceroute.pool-default.cfg}: the distribution ships it). */
    protected static final String POOL_PID = "org.balanceroute.pool~default";

    /**
     * Merges properties into the pool {@code default}'s configuration (a factory configuration),
     * as an edit of its file would.
     */
    protected void configurePool(Object... keyValues) throws IOException {
        org.osgi.service.cm.Configuration c = configurationAdmin.getFactoryConfiguration("org.balanceroute.pool",
                "default", "?");
        Dictionary<String, Object> props = c.getProperties() == null ? new Hashtable<>() : c.getProperties();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        c.update(props);
    }

    /**
     * One decode instance of the given workers and B, and the given prefill instances, as the pool
     * {@code default}'s topology (their one owner).
     */
    protected void configureDecode(String prefillUrls, java.util.List<String> workers, int capacity) throws IOException {
        configurePool("prefillUrls", prefillUrls, "instances", "decode", "instance.decode.workers",
                String.join(", ", workers), "instance.decode.capacity", Integer.toString(capacity));
    }

    /**
     * G decode workers of B {@code capacity} as the pool's one instance: DP ranks of an endpoint
     * that only answers {@code /health} (200), so that their health checks keep them in routing
     * (with every worker marked down requests would wait in the pool). Nothing here sends them a
     * completion.
     */
    protected void configureDecodeWorkers(int g, int capacity) throws IOException {
        int port = healthyEndpoint();
        java.util.List<String> urls = new java.util.ArrayList<>();
        for (int i = 0; i < g; i++) {
            urls.add("http://127.0.0.1:" + port + ";rank=" + i);
        }
        configurePool("instances", "decode", "instance.decode.workers", String.join(", ", urls),
                "instance.decode.capacity", Integer.toString(capacity));
    }

    private static ServerSocket healthy;

    /** A local port answering every request with an empty 200 (one per test class's framework). */
    private static synchronized int healthyEndpoint() throws IOException {
        if (healthy == null) {
            ServerSocket server = new ServerSocket(0, 64, java.net.InetAddress.getLoopbackAddress());
            Thread t = new Thread(() -> {
                while (!server.isClosed()) {
                    try (Socket s = server.accept()) {
                        readHead(s.getInputStream());
                        s.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                                .getBytes(StandardCharsets.US_ASCII));
                    } catch (IOException e) {
                        // one connection failed (or the port closed): go on with the next
                    }
                }
            }, "itest-healthy-endpoint");
            t.setDaemon(true);
            t.start();
            healthy = server;
        }
        return healthy.getLocalPort();
    }

    /** Reads up to the blank line that ends a request's head (a GET has no body). */
    private static void readHead(InputStream in) throws IOException {
        int matched = 0;
        for (int b; matched < 4 && (b = in.read()) >= 0; ) {
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
        }
    }

    protected int port() {
        return Integer.parseInt(context.getProperty("balanceroute.itest.port"));
    }

    /** An HTTP exchange with the runtime's own Jetty, as the admin user unless told otherwise. */
    protected HttpResponse<String> http(String method, String path, String body, boolean authenticate)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path))
                .timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (authenticate) {
            b.header("Authorization", "Basic "
                    + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8)));
        }
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                .send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Waits until the admin API answers (the whiteboard registers resources asynchronously). */
    protected void awaitAdminApi() throws InterruptedException {
        await("GET /admin/policies to answer 200", () -> {
            try {
                return http("GET", "/admin/policies", null, true).statusCode() == 200;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }
}
