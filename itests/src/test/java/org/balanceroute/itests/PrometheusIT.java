package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;

/**
 * A real Prometheus (Debian's {@code /usr/bin/prometheus}, a process on a free port with its own
 * TSDB) scrapes a real runtime process every second under load from {@link #CLIENTS} streaming
 * clients, in front of the simulated vLLM cluster (G = {@link #WORKERS} decode ranks), with the
 * rules file the release ships ({@code distribution/src/release/prometheus/balanceroute-rules.yml}),
 * evaluated every second. Through Prometheus's HTTP API: every recording rule has a value; the
 * straggler alert does not fire under a load with no straggler, and fires for the rank a straggler
 * is made on, and only for it; every expression of the shipped Grafana dashboard parses
 * ({@code promtool check rules}) and, like every rule's, names only metrics the live runtime
 * exports or the rules record.
 *
 * <p><b>Shortened windows.</b> The test runs a copy of the shipped rules with every {@code [5m]}
 * window shortened to {@value #WINDOW}, {@code [1h]} to {@value #LONG_WINDOW} and every
 * {@code for:} to {@value #FOR}, so that it ends in well under a minute; the expressions and
 * thresholds are the shipped ones. {@code promtool test rules} over the real windows is
 * {@code distribution/src/release/prometheus/balanceroute-rules.test.yml} (run by
 * {@link #e_theShippedRulesPassTheirPromtoolUnitTests}).
 *
 * <p><b>The straggler.</b> The straggler counter counts, at each dispatch step, the worker with the
 * strictly largest KV load L. A {@code slowFactor} fault does not make that: every rank steps
 * together at the barrier, so a slow rank gains tokens no faster than the others. What does, for
 * certain: one streamed request whose prompt ({@link #LONG_PROMPT_TOKENS} tokens) is larger than
 * all the background load can be ({@link #CLIENTS} clients, at most one request each, of at most
 * {@link #MAX_PROMPT} + {@link #MAX_OUTPUT} tokens): a long context pinned to one rank. Whatever
 * the policy does with the other requests, the rank holding it is the heaviest at every step
 * while it runs. The test holds it open (reading its stream) until the alert fired, then
 * closes it.
 *
 * <p>With {@code -Dbalanceroute.screenshots=DIR} (an absolute path) it also takes the docs'
 * pictures, into DIR, while the straggler runs: the web console's BalanceRoute page and
 * Prometheus's graph of the barrier's idle fraction (docs/metrics.md says how; without the
 * property none, which keeps the test's time in CI about 13 s shorter). Not skipped when
 * Prometheus (or, for the pictures, Chromium) is missing: it fails, saying what to install (CI
 * installs both).
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class PrometheusIT {

    static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
    static final Path PROMTOOL = Path.of("/usr/bin/promtool");
    static final String WINDOW = "10s";
    static final String LONG_WINDOW = "1m";
    static final String FOR = "3s";
    static final int WORKERS = 4;
    static final int CLIENTS = 16;
    static final int MAX_PROMPT = 1000;
    static final int MAX_OUTPUT = 50;
    /** The straggler's prompt: more than all the background load can hold, 16 x 1,050 tokens. */
    static final int LONG_PROMPT_TOKENS = 30_000;
    /** The seconds over which the straggler alert must not fire without a straggler: the window, the for: and some. */
    static final int QUIET_SECONDS = 10;
    static final String STRAGGLER = "BalanceRouteStraggler";
    static final String SHARE = "decode_instance_worker:balanceroute_straggler_steps:ratio_rate5m";
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private static long started;
    private static Path work;
    private static SimCluster engines;
    private static RuntimeProcess runtime;
    private static Process prometheus;
    private static int prometheusPort;
    private static Load load;
    private static LongRequest straggler;

    static Path release() {
        return RuntimeProcess.root().resolve("distribution/src/release");
    }

    static Path rulesFile() {
        return release().resolve("prometheus/balanceroute-rules.yml");
    }

    @BeforeClass
    public static void start() throws Exception {
        started = System.nanoTime();
        assertTrue("Prometheus and promtool are needed at " + PROMETHEUS + " and " + PROMTOOL
                + ": install Debian's prometheus package (apt-get install -y --no-install-recommends prometheus;"
                + " .ci/run does)", Files.isExecutable(PROMETHEUS) && Files.isExecutable(PROMTOOL));
        engines = SimCluster.start(SimConfig.builder().prefill(1).decode(WORKERS).portBase(0).timeFactor(0.25).build());
        work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "balanceroute-prometheus");
        runtime = new RuntimeProcess("prometheus", work, RuntimeProcess.poolConfig(engines, 1, WORKERS)).start(null).awaitUp();
        phase("runtime up");
        // the load first: Prometheus's first windows see it steady, not the first few requests on an empty tier
        load = new Load();
        RuntimeProcess.await("20 requests answered (" + load.failed.get() + " failed, the first: " + load.failure.get() + ")",
                Duration.ofSeconds(60), () -> load.ok.get() >= 20);
        phase("load running");
        startPrometheus();
        phase("Prometheus ready");
    }

    static void phase(String what) {
        System.out.printf("PrometheusIT: %s at %.1f s%n", what, (System.nanoTime() - started) / 1e9);
    }

    @AfterClass
    public static void stop() throws Exception {
        if (straggler != null) {
            straggler.close();
        }
        if (load != null) {
            load.close();
        }
        if (prometheus != null) {
            prometheus.destroy();
            if (!prometheus.waitFor(20, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly();
            }
        }
        if (runtime != null) {
            runtime.close();
        }
        if (engines != null) {
            engines.close();
        }
        System.out.printf("PrometheusIT: %.1f s in all%n", (System.nanoTime() - started) / 1e9);
    }

    /** The shipped rules with the test's short windows (the class comment says why). */
    static String shortened(String rules) {
        Matcher windows = Pattern.compile("\\[(\\w+)\\]|for: (\\w+)").matcher(rules);
        while (windows.find()) {
            assertTrue("a window the test does not shorten: " + windows.group(),
                    Set.of("[5m]", "[1h]", "for: 5m", "for: 1m").contains(windows.group()));
        }
        return rules.replace("[5m]", "[" + WINDOW + "]").replace("[1h]", "[" + LONG_WINDOW + "]")
                .replaceAll("for: \\d+m", "for: " + FOR);
    }

    /** Starts {@link #prometheus} (stopped after the class even when it does not come up) and waits until it is ready. */
    private static void startPrometheus() throws Exception {
        Files.writeString(work.resolve("rules.yml"), shortened(Files.readString(rulesFile())));
        Files.writeString(work.resolve("prometheus.yml"), "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                + "rule_files:\n  - rules.yml\n"
                + "scrape_configs:\n  - job_name: balanceroute\n    metrics_path: /metrics\n"
                + "    static_configs:\n      - targets: ['127.0.0.1:" + runtime.httpPort + "']\n");
        prometheusPort = RuntimeProcess.freePort();
        prometheus = new ProcessBuilder(PROMETHEUS.toString(), "--config.file=" + work.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + work.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + prometheusPort)
                .directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(work.resolve("prometheus.log").toFile())).start();
        RuntimeProcess.await("Prometheus ready on " + prometheusPort + " (" + work.resolve("prometheus.log") + ")",
                Duration.ofSeconds(60), () -> {
                    if (!prometheus.isAlive()) {
                        throw new AssertionError("Prometheus exited with " + prometheus.exitValue() + ": "
                                + work.resolve("prometheus.log"));
                    }
                    try {
                        return get(prometheusBase() + "/-/ready").statusCode() == 200;
                    } catch (IOException e) {
                        return false;
                    }
                });
    }

    static String prometheusBase() {
        return "http://127.0.0.1:" + prometheusPort;
    }

    static HttpResponse<String> get(String url) throws IOException {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** An instant query's result vector (Prometheus's /api/v1/query); empty while it does not answer. */
    static JsonNode query(String promql) {
        try {
            HttpResponse<String> r = get(prometheusBase() + "/api/v1/query?query="
                    + URLEncoder.encode(promql, StandardCharsets.UTF_8));
            JsonNode body = RuntimeProcess.JSON.readTree(r.body());
            assertEquals(promql + ": " + r.body(), "success", body.path("status").asText());
            return body.path("data").path("result");
        } catch (IOException e) {
            return RuntimeProcess.JSON.createArrayNode();
        }
    }

    /** The value of a one-element result, NaN when there is none. */
    static double value(JsonNode result) {
        return result.size() == 1 ? result.get(0).path("value").path(1).asDouble(Double.NaN) : Double.NaN;
    }

    /** The {@code worker} label of each firing straggler alert. */
    static Set<String> firingStragglers() {
        Set<String> workers = new TreeSet<>();
        query("ALERTS{alertname=\"" + STRAGGLER + "\",alertstate=\"firing\"}")
                .forEach(a -> workers.add(a.path("metric").path("worker").asText()));
        return workers;
    }

    /** The {@code record:} names of the shipped rules file. */
    static List<String> recordingRules() throws IOException {
        List<String> names = new ArrayList<>();
        Matcher m = Pattern.compile("(?m)^\\s*- record: (\\S+)\\s*$").matcher(Files.readString(rulesFile()));
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    @Test
    public void a_everyRecordingRuleHasAValue() throws Exception {
        List<String> names = recordingRules();
        assertTrue("recording rules in " + rulesFile() + ": " + names, names.size() >= 8);
        for (String name : names) {
            RuntimeProcess.await("a value of " + name + " in Prometheus", Duration.ofSeconds(60),
                    () -> query(name).size() > 0);
        }
        assertEquals("a share per worker", WORKERS, query(SHARE).size());
        double waste = value(query("decode_instance:balanceroute_instance_barrier_waste_ratio:avg_over_time5m"));
        assertTrue("the barrier's idle fraction is a fraction: " + waste, waste >= 0 && waste < 1);
        // over a window: at one scrape every client may be between two requests
        double tokens = value(query("max_over_time(pool:balanceroute_output_tokens_per_second:estimate[" + WINDOW + "])"));
        assertTrue("tokens/s under load: " + tokens, tokens > 0);
        System.out.printf("PrometheusIT: under load, tokens/s estimated up to %.0f; TTFT p95 %.3f s,"
                + " TPOT p95 %.4f s, idle fraction %.2f%n", tokens, value(query("job:balanceroute_time_to_first_token_seconds:p95_rate5m")),
                value(query("job:balanceroute_time_per_output_token_seconds:p95_rate5m")), waste);
    }

    @Test
    public void b_noStragglerAlertWithoutAStraggler() throws Exception {
        // Prometheus evaluated every worker's share over whole windows through the quiet period, with
        // the instance stepping fast enough for the alert to count: had one rank been the heaviest,
        // it would have fired. (The first window after Prometheus's start holds less than a window.)
        String quiet = "[" + QUIET_SECONDS + "s]";
        int evaluated = QUIET_SECONDS + Integer.parseInt(WINDOW.replace("s", ""));
        RuntimeProcess.await(evaluated + " s of shares of each worker", Duration.ofSeconds(90), () -> {
            JsonNode counts = query("count_over_time(" + SHARE + "[" + evaluated + "s])");
            double least = Double.MAX_VALUE;
            for (JsonNode c : counts) {
                least = Math.min(least, c.path("value").path(1).asDouble());
            }
            return counts.size() == WORKERS && least >= evaluated - 1;
        });
        double stepping = value(query("min_over_time(rate(balanceroute_instance_steps_total[" + WINDOW + "])"
                + quiet.replace("]", ":1s]") + ")"));
        assertTrue("the instance stepped more than once a second throughout: " + stepping, stepping > 1);
        double largest = value(query("max(max_over_time(" + SHARE + quiet + "))"));
        assertEquals("no straggler alert firing over the last " + quiet + " (largest share " + largest + ")", 0,
                query("max_over_time(ALERTS{alertname=\"" + STRAGGLER + "\",alertstate=\"firing\"}" + quiet + ")").size());
        assertEquals("the background load failed " + load.failed.get() + " times: " + load.failure.get(), 0,
                load.failed.get());
        phase("no straggler for " + QUIET_SECONDS + " s");
        // with whole windows: the measured tokens/s and the per-pool estimate (running requests / decode step) agree
        double measured = value(query("job:balanceroute_output_tokens:rate5m"));
        double estimated = value(query("avg_over_time(pool:balanceroute_output_tokens_per_second:estimate[" + WINDOW + "])"));
        assertTrue("tokens/s measured " + measured + ", estimated " + estimated + ": within a factor of 2",
                measured > 0 && estimated > measured / 2 && estimated < measured * 2);
        System.out.printf("PrometheusIT: output tokens/s over %s: %.0f measured, %.0f estimated%n", WINDOW, measured, estimated);
        System.out.printf("PrometheusIT: no straggler: largest share of a worker over %s windows in %s: %.2f;"
                + " the instance stepped at least %.0f times a second%n", WINDOW, quiet, largest, stepping);
    }

    @Test
    public void c_aRankGivenALongContextFiresTheStragglerAlert() throws Exception {
        assertTrue("the long prompt outweighs all the background load", CLIENTS * (MAX_PROMPT + MAX_OUTPUT) < LONG_PROMPT_TOKENS);
        straggler = new LongRequest(LONG_PROMPT_TOKENS);
        int[] rank = {-1};
        RuntimeProcess.await("the long request's prompt on a worker", Duration.ofSeconds(30), () -> {
            JsonNode s = runtime.snapshot();
            for (JsonNode w : s == null ? RuntimeProcess.JSON.createArrayNode() : s.path("workers")) {
                if (w.path("load").asLong() >= LONG_PROMPT_TOKENS) {
                    rank[0] = w.path("worker").asInt();
                }
            }
            return rank[0] >= 0;
        });
        String worker = Integer.toString(rank[0]);
        long placed = System.nanoTime();
        RuntimeProcess.await(STRAGGLER + " firing for worker " + worker, Duration.ofSeconds(60),
                () -> firingStragglers().contains(worker));
        System.out.printf("PrometheusIT: %s firing for worker %s %.1f s after the long request was placed%n", STRAGGLER,
                worker, (System.nanoTime() - placed) / 1e9);
        assertEquals("only the rank with the long context", Set.of(worker), firingStragglers());
        assertTrue("the long request still streams", straggler.alive());
        phase("straggler alert fired");
        String screenshots = System.getProperty("balanceroute.screenshots", "");
        if (!screenshots.isBlank()) {
            screenshots(Path.of(screenshots));
            phase("screenshots taken");
        }
        straggler.close();
        assertEquals("the background load failed " + load.failed.get() + " times: " + load.failure.get(), 0,
                load.failed.get());
    }

    @Test
    public void d_dashboardAndRulesNameOnlyExportedOrRecordedMetrics() throws Exception {
        Set<String> exported = exportedNames(runtime.get("/metrics").body());
        Set<String> recorded = new TreeSet<>(recordingRules());
        Set<String> known = new TreeSet<>(exported);
        known.addAll(recorded);
        known.add("ALERTS"); // Prometheus's own series of the alerts

        // the rules as Prometheus loaded them
        JsonNode groups = RuntimeProcess.JSON.readTree(get(prometheusBase() + "/api/v1/rules").body()).path("data").path("groups");
        int rules = 0;
        for (JsonNode g : groups) {
            for (JsonNode r : g.path("rules")) {
                rules++;
                assertEquals(r.path("name").asText() + " evaluates: " + r.path("lastError").asText(), "ok",
                        r.path("health").asText());
                assertKnown("rule " + r.path("name").asText(), r.path("query").asText(), known);
            }
        }
        assertEquals("the rules Prometheus loaded", recorded.size() + 5, rules);

        // the dashboard's: each expression parses, as a recording rule of promtool's, and names known metrics
        JsonNode dashboard = RuntimeProcess.JSON.readTree(release().resolve("grafana/balanceroute-dashboard.json").toFile());
        List<String> exprs = new ArrayList<>();
        collectExprs(dashboard.path("panels"), exprs);
        assertTrue("the dashboard's expressions: " + exprs, exprs.size() >= 20);
        StringBuilder asRules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        for (int i = 0; i < exprs.size(); i++) {
            String expr = grafanaVariables(exprs.get(i));
            asRules.append("      - record: dashboard:expr:").append(i).append("\n        expr: ")
                    .append(RuntimeProcess.JSON.writeValueAsString(expr)).append('\n');
            assertKnown("dashboard expression " + exprs.get(i), expr, known);
        }
        for (JsonNode v : dashboard.path("templating").path("list")) {
            if (v.path("type").asText().equals("query")) {
                Matcher m = Pattern.compile("^label_values\\((.+),\\s*(\\w+)\\)$").matcher(v.path("definition").asText());
                assertTrue("variable " + v.path("name").asText() + ": " + v.path("definition").asText(), m.matches());
                String selector = grafanaVariables(m.group(1));
                asRules.append("      - record: dashboard:variable:").append(v.path("name").asText())
                        .append("\n        expr: ").append(RuntimeProcess.JSON.writeValueAsString(selector)).append('\n');
                assertKnown("variable " + v.path("name").asText(), selector, known);
                assertTrue("variable " + v.path("name").asText() + "'s label " + m.group(2) + " on " + selector,
                        query(selector).size() > 0 && query(selector).get(0).path("metric").has(m.group(2)));
            }
        }
        Path file = work.resolve("dashboard-as-rules.yml");
        Files.writeString(file, asRules);
        String out = promtool("check", "rules", file.toString());
        assertTrue(out, out.contains("SUCCESS: " + (exprs.size() + 3) + " rules found"));
        System.out.printf("PrometheusIT: %d dashboard expressions and %d rules name only exported or recorded metrics%n",
                exprs.size(), rules);
    }

    @Test
    public void e_theShippedRulesPassTheirPromtoolUnitTests() throws Exception {
        String check = promtool("check", "rules", rulesFile().toString());
        assertTrue(check, check.contains("SUCCESS"));
        String test = promtool("test", "rules", release().resolve("prometheus/balanceroute-rules.test.yml").toString());
        assertTrue(test, test.contains("SUCCESS"));
    }

    /** Runs promtool; its output, with its exit status checked. */
    static String promtool(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(PROMTOOL.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue("promtool " + String.join(" ", args) + " ended", p.waitFor(60, TimeUnit.SECONDS));
        assertEquals("promtool " + String.join(" ", args) + ": " + out, 0, p.exitValue());
        return out;
    }

    /** Grafana's variables replaced by what they stand for: every replica, pool, instance; a rate window. */
    static String grafanaVariables(String expr) {
        return expr.replace("$__rate_interval", "1m").replace("$__range", "1h").replace("$replica", ".*")
                .replace("$pool", ".*").replace("$decode_instance", ".*");
    }

    static void collectExprs(JsonNode panels, List<String> exprs) {
        for (JsonNode p : panels) {
            p.path("targets").forEach(t -> exprs.add(t.path("expr").asText()));
            collectExprs(p.path("panels"), exprs);
        }
    }

    /**
     * The metric names a /metrics page declares: its samples' names, and the families of its
     * {@code # TYPE} lines with the series names a histogram or summary family stands for.
     */
    static Set<String> exportedNames(String text) {
        Set<String> names = new TreeSet<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                String[] f = line.split(" ");
                names.add(f[2]);
                if (f[3].equals("histogram") || f[3].equals("summary")) {
                    names.addAll(List.of(f[2] + "_bucket", f[2] + "_count", f[2] + "_sum"));
                }
            } else if (!line.isBlank() && !line.startsWith("#")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    /**
     * Only exported in a cluster of proxies (a summary of samples between replicas; a runtime of its
     * own has none, so its family is left out of /metrics): docs/metrics.md documents it.
     */
    static final Set<String> CLUSTER_ONLY = Set.of("balanceroute_cluster_view_staleness_seconds");

    static void assertKnown(String what, String expr, Set<String> known) throws IOException {
        Set<String> names = metricNames(expr);
        assertFalse(what + " names no metric", names.isEmpty());
        for (String name : names) {
            if (CLUSTER_ONLY.contains(name)) {
                assertTrue(name + " documented", Files.readString(RuntimeProcess.root().resolve("docs/metrics.md"))
                        .contains("`" + name + "`"));
                continue;
            }
            assertTrue(what + ": " + name + " is neither exported by the runtime nor recorded by the rules", known.contains(name));
        }
    }

    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on",
            "ignoring", "group_left", "group_right", "inf", "nan", "Inf", "NaN");

    /** The metric names a PromQL expression selects (functions, keywords, labels and durations left out). */
    static Set<String> metricNames(String expr) {
        String s = expr.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"")
                .replaceAll("\\{[^}]*\\}", " ")
                .replaceAll("\\[[^\\]]*\\]", " ")
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
        Set<String> names = new TreeSet<>();
        Matcher m = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*").matcher(s);
        while (m.find()) {
            int before = m.start() - 1;
            if (before >= 0 && (Character.isDigit(s.charAt(before)) || s.charAt(before) == '.')) {
                continue; // 1e3, a duration's unit
            }
            int after = m.end();
            while (after < s.length() && s.charAt(after) == ' ') {
                after++;
            }
            if ((after < s.length() && s.charAt(after) == '(') || KEYWORDS.contains(m.group())) {
                continue; // a function or aggregation, a keyword
            }
            names.add(m.group());
        }
        return names;
    }

    @Test
    public void metricNamesOfAnExpression() {
        assertEquals(Set.of("a_total", "b:c:d"), metricNames("sum by (job, le) (rate(a_total{x=\"y{z}\"}[5m])) / on (job)"
                + " group_left () b:c:d offset 5m > bool 1e3 and nan"));
    }

    /** Screenshots of the console page and of Prometheus's graph of the barrier's idle fraction, now. */
    static void screenshots(Path dir) throws Exception {
        assertTrue("Chromium and ChromeDriver are needed at " + ConsolePluginIT.CHROMIUM + " and "
                + ConsolePluginIT.CHROMEDRIVER + ": install Debian's packages (apt-get install -y chromium chromium-driver;"
                + " .ci/run does)", Files.isExecutable(ConsolePluginIT.CHROMIUM) && Files.isExecutable(ConsolePluginIT.CHROMEDRIVER));
        Files.createDirectories(dir);
        WebDriver browser = ConsolePluginIT.browser(work.resolve("chrome-profile"));
        try {
            browser.manage().window().setSize(new Dimension(1280, 860));
            browser.get(runtime.base().replace("http://", "http://admin:admin@") + "/system/console/balanceroute");
            RuntimeProcess.await("the console's chart with the long request's load", Duration.ofSeconds(30),
                    () -> Boolean.TRUE.equals(((JavascriptExecutor) browser).executeScript(
                            "var b = window.balanceroute && window.balanceroute.histories['default'];"
                                    + " return !!b && b.loads.some(function (l) { return l.some(function (v) { return v >= "
                                    + LONG_PROMPT_TOKENS + "; }); })")));
            screenshot(browser, dir.resolve("metrics-console.png"));
            browser.manage().window().setSize(new Dimension(1280, 1000));
            String expr = "decode_instance:balanceroute_instance_barrier_waste_ratio:avg_over_time5m";
            browser.get(prometheusBase() + "/graph?g0.expr=" + URLEncoder.encode(expr, StandardCharsets.UTF_8)
                    + "&g0.tab=0&g0.range_input=1m");
            RuntimeProcess.await("Prometheus's graph of " + expr, Duration.ofSeconds(30),
                    () -> !browser.findElements(By.cssSelector(".graph_area svg path")).isEmpty());
            screenshot(browser, dir.resolve("metrics-prometheus-idle-fraction.png"));
        } finally {
            browser.quit();
        }
    }

    static void screenshot(WebDriver browser, Path file) throws IOException {
        Files.write(file, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
        System.out.println("PrometheusIT: screenshot " + file.toAbsolutePath() + " (" + Files.size(file) / 1024 + " KiB)");
    }

    /** One streaming completion of that many prompt tokens and as many output tokens as it is read for. */
    static String completion(int promptTokens, int maxTokens) {
        return "{\"model\": \"balanceroute-sim\", \"prompt\": \"" + "word".repeat(promptTokens)
                + "\", \"max_tokens\": " + maxTokens + ", \"ignore_eos\": true, \"stream\": true,"
                + " \"stream_options\": {\"include_usage\": true}}";
    }

    /**
     * {@link #CLIENTS} clients, each streaming one completion after another (prompt 200..{@link #MAX_PROMPT}
     * tokens, output 10..{@link #MAX_OUTPUT}, seeded), each checked to end with [DONE] and its tokens. Many
     * short requests: the heaviest worker changes often, so that without a straggler no worker's share of
     * a 10-s window comes near 1/2 (0.27 to 0.30 where six clients of requests up to 2,100 tokens
     * reached 0.45).
     */
    static final class Load implements AutoCloseable {
        final AtomicInteger ok = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        final AtomicReference<String> failure = new AtomicReference<>();
        private volatile boolean stopped;
        private final List<Thread> threads = new ArrayList<>();

        Load() {
            for (int c = 0; c < CLIENTS; c++) {
                Random random = new Random(c);
                Thread t = new Thread(() -> {
                    while (!stopped) {
                        int out = 10 + random.nextInt(MAX_OUTPUT - 9);
                        one(200 + random.nextInt(MAX_PROMPT - 199), out);
                    }
                }, "prometheus-it-load-" + c);
                t.setDaemon(true);
                t.start();
                threads.add(t);
            }
        }

        private void one(int prompt, int out) {
            try {
                HttpResponse<java.util.stream.Stream<String>> r = HTTP.send(HttpRequest.newBuilder(
                        URI.create(runtime.base() + "/v1/completions")).header("Content-Type", "application/json")
                        .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString(completion(prompt, out)))
                        .build(), HttpResponse.BodyHandlers.ofLines());
                int tokens = r.statusCode() == 200 ? RuntimeProcess.completionTokens(r.body()) : -3;
                if (tokens == out) {
                    ok.incrementAndGet();
                } else if (!stopped) {
                    failed.incrementAndGet();
                    failure.compareAndSet(null, "status " + r.statusCode() + ", tokens " + tokens + " of " + out);
                }
            } catch (IOException e) {
                if (!stopped) {
                    failed.incrementAndGet();
                    failure.compareAndSet(null, e.toString());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stopped = true;
            }
        }

        @Override
        public void close() throws InterruptedException {
            stopped = true;
            for (Thread t : threads) {
                t.join(70_000);
            }
        }
    }

    /**
     * A streamed completion with a long prompt and no end of its own (max_tokens far beyond the test),
     * read on its own thread over a plain socket until {@link #close()} closes the connection.
     */
    static final class LongRequest implements AutoCloseable {
        private final Socket socket;
        private final Thread reader;
        private final AtomicInteger chunks = new AtomicInteger();

        LongRequest(int promptTokens) throws IOException {
            socket = new Socket("127.0.0.1", runtime.httpPort);
            byte[] body = completion(promptTokens, 100_000).getBytes(StandardCharsets.UTF_8);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1:" + runtime.httpPort
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        if (line.startsWith("data: ")) {
                            chunks.incrementAndGet();
                        }
                    }
                } catch (IOException e) {
                    // closed by the test
                }
            }, "prometheus-it-long-request");
            reader.setDaemon(true);
            reader.start();
        }

        boolean alive() {
            return reader.isAlive() && chunks.get() > 0;
        }

        @Override
        public void close() throws IOException, InterruptedException {
            socket.close();
            reader.join(10_000);
        }
    }
}
