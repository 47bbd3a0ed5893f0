package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.balanceroute.testkit.RawHttp;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The release archive as an operator installs it: unpacked into an empty folder outside the source
 * tree, started with its own {@code bin/balanceroute-runtime} in an environment that has a Java
 * runtime and the script's few tools and nothing else (no Maven, no source tree), it serves a
 * streamed completion against the simulated cluster and stops cleanly on SIGTERM, as systemd stops
 * it; its systemd unit passes {@code systemd-analyze verify}.
 */
public class ReleaseIT {

    static final String MODEL = "balanceroute-sim";

    private static Path work;
    private static Path installation;

    @BeforeClass
    public static void unpack() throws Exception {
        Path archive = Path.of(System.getProperty("balanceroute.release.archive"));
        assertTrue("the release archive " + archive + " (built by mvn package in distribution/)", Files.isRegularFile(archive));
        work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "balanceroute-release");
        run(List.of("tar", "xzf", archive.toString(), "-C", work.toString()));
        try (Stream<Path> top = Files.list(work)) {
            List<Path> entries = top.toList();
            String version = archive.getFileName().toString().replaceFirst("^balanceroute-", "").replaceFirst("\\.tar\\.gz$", "");
            assertEquals("one folder, balanceroute-VERSION", List.of(work.resolve("balanceroute-" + version)), entries);
            installation = entries.get(0);
        }
    }

    @AfterClass
    public static void delete() throws IOException {
        if (work != null) {
            try (Stream<Path> all = Files.walk(work)) {
                for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }
    }

    @Test
    public void holdsWhatTheOperatorsReadmeSays() {
        assertTrue("the start script is executable", Files.isExecutable(installation.resolve("bin/balanceroute-runtime")));
        for (String p : List.of("bin/felix.jar", "README.md", "systemd/balanceroute.service",
                "prometheus/balanceroute-rules.yml", "prometheus/scrape-example.yml", "grafana/balanceroute-dashboard.json",
                "config/org.balanceroute.pool-default.cfg", "features/cluster/config/org.balanceroute.cluster.cfg")) {
            assertTrue(p, Files.isRegularFile(installation.resolve(p)));
        }
        for (String d : List.of("boot", "bundle", "conf", "deploy", "logs")) {
            assertTrue(d + "/", Files.isDirectory(installation.resolve(d)));
        }
    }

    @Test
    public void startsFromAnEmptyFolderServesAStreamAndStopsOnSigterm() throws Exception {
        try (SimCluster engines = SimCluster.start(SimConfig.builder().prefill(1).decode(2).portBase(0).timeFactor(0.01).build());
                RuntimeProcess runtime = new RuntimeProcess(installation, "home", work, RuntimeProcess.poolConfig(engines, 1, 2))) {
            // the operator's framework properties, kept in the home across upgrades
            Files.writeString(runtime.home.resolve("runtime.properties"), "org.apache.felix.http.host=0.0.0.0\n");
            runtime.start(null).awaitUp();

            byte[] body = ("{\"model\": \"" + MODEL + "\", \"prompt\": \"hello\", \"max_tokens\": 9, \"ignore_eos\": true,"
                    + " \"stream\": true, \"stream_options\": {\"include_usage\": true}}").getBytes(StandardCharsets.UTF_8);
            RawHttp.Answer a = RawHttp.send(runtime.httpPort, RawHttp.head("POST", "/v1/completions", runtime.httpPort,
                    "Content-Type: application/json", "Content-Length: " + body.length), body, 30_000);
            assertEquals(a.body(), 200, a.status());
            assertEquals(a.body(), 9, RuntimeProcess.completionTokens(a.body().lines()));

            String log = Files.readString(runtime.home.resolve("runtime.log"));
            assertTrue("the ready line, bound as runtime.properties says: " + log,
                    log.contains(" - ready: http://0.0.0.0:" + runtime.httpPort + " ("));
            assertFalse("the bundle cache is in the home, not in the installation",
                    Files.exists(installation.resolve("cache")));

            assertEquals("the JVM's exit on SIGTERM", 128 + 15, runtime.terminate());
            assertTrue("the framework stopped its server: " + Files.readString(runtime.home.resolve("runtime.log")),
                    Files.readString(runtime.home.resolve("runtime.log")).contains("Stopped Jetty"));
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", runtime.httpPort), 2000);
                throw new AssertionError("port " + runtime.httpPort + " still open after the stop");
            } catch (IOException closed) {
                // expected: nothing listens any more
            }
        }
    }

    @Test
    public void itsSystemdUnitVerifies() throws Exception {
        Path unit = work.resolve("balanceroute.service");
        Files.writeString(unit, Files.readString(installation.resolve("systemd/balanceroute.service"))
                .replace("/opt/balanceroute", installation.toString()));
        String out = run(List.of("systemd-analyze", "verify", unit.toString()));
        assertFalse("systemd-analyze verify says nothing of the unit: " + out, out.contains("balanceroute.service"));
    }

    /** Runs a command to its end; its output; fails the test on a non-zero exit. */
    static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(command + " ended", p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(command + ": " + out, 0, p.exitValue());
        return out;
    }
}
