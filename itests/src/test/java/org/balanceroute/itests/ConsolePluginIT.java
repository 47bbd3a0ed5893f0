package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
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
import java.util.Base64;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.balanceroute.replay.Replayer;
import org.balanceroute.trace.TraceRequest;
import org.balanceroute.trace.WorkloadGenerator;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;

/**
 * The BalanceRoute web console page in a real browser (Debian's Chromium, headless, driven by
 * Selenium through Debian's chromedriver) against a real runtime process (started from the built
 * distribution as an operator starts it) in front of the simulated vLLM cluster under load from the
 * replayer. The pool has two decode instances, a (workers 0, 1) and b (2, 3). Logs in, sees one
 * chart per instance with one line per worker move, switches br0 to brh-survival in the page (the
 * router's active policy changes, read through the admin API), submits an out-of-range value and
 * sees the refusal while the old value stays in force, sees a POST without the CSRF token refused,
 * sees a hot-deployed policy appear with the tunables of its schema, and drains the busiest worker
 * with its button: it shows draining, then drained, and gets no new request while the others do,
 * until its undrain button puts it back to serving; with the other instance drained by its button,
 * it takes requests again. Screenshots go to
 * {@code target/console-plugin*.png}.
 *
 * <p>Not skipped when the browser is missing: it fails, saying what to install (CI installs it).
 * The page's policy form and switch use the admin bundle's {@code PolicyAdmin}.
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class ConsolePluginIT {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final String AUTH = "Basic " + Base64.getEncoder()
            .encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8));
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final Duration UI = Duration.ofSeconds(30);
    private static final int WORKERS = 4;
    /** The decode instances: a of workers 0 and 1, b of workers 2 and 3. */
    private static final String[] INSTANCES = {"a", "b"};
    private static final int PER_INSTANCE = WORKERS / INSTANCES.length;

    private static SimCluster engines;
    private static RuntimeProcess runtime;
    private static WebDriver browser;
    private static Thread load;
    private static String page;
    private static long started;

    @BeforeClass
    public static void start() throws Exception {
        started = System.nanoTime();
        assertTrue("Chromium and ChromeDriver are needed at " + CHROMIUM + " and " + CHROMEDRIVER
                + ": install Debian's packages (apt-get install -y chromium chromium-driver; .ci/run does)",
                Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER));
        engines = SimCluster.start(SimConfig.builder().prefill(1).decode(WORKERS).portBase(0).timeFactor(0.5)
                .streamInterval(8).build());
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "balanceroute-console");
        String pool = twoInstancePool();
        runtime = new RuntimeProcess("console", work, pool).connector("healthIntervalMillis = 500").start(null).awaitUp();
        ensurePolicyAdmin();
        load = startLoad();
        page = runtime.base().replace("http://", "http://admin:admin@") + "/system/console/balanceroute";
        browser = browser(work.resolve("chrome-profile"));
    }

    @AfterClass
    public static void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        if (load != null) {
            load.interrupt();
            load.join(10_000);
        }
        if (runtime != null) {
            runtime.close();
        }
        if (engines != null) {
            engines.close();
        }
        System.out.printf("ConsolePluginIT: %.1f s in all%n", (System.nanoTime() - started) / 1e9);
    }

    /** The pool {@code default} of one prefill server and two decode instances of {@link #PER_INSTANCE} workers, B 64. */
    private static String twoInstancePool() {
        StringBuilder b = new StringBuilder("model = balanceroute-sim\nprefillUrls = " + engines.prefillUrl(0)
                + "\ninstances = " + String.join(", ", INSTANCES) + "\n");
        for (int i = 0; i < INSTANCES.length; i++) {
            int first = i * PER_INSTANCE;
            b.append("instance.").append(INSTANCES[i]).append(".workers = ")
                    .append(IntStream.range(first, first + PER_INSTANCE).mapToObj(engines::decodeUrl)
                            .collect(Collectors.joining(", ")))
                    .append("\ninstance.").append(INSTANCES[i]).append(".capacity = 64\n");
        }
        return b.toString();
    }

    /** The admin bundle's PolicyAdmin, which the page's policy form and switch use. */
    private static void ensurePolicyAdmin() throws Exception {
        String type = "org.balanceroute.admin.PolicyAdmin";
        RuntimeProcess.await("the admin bundle's PolicyAdmin registered", Duration.ofSeconds(30), () -> {
            try {
                return servicesJson().contains(type);
            } catch (IOException e) {
                return false;
            }
        });
    }

    private static String servicesJson() throws IOException {
        return runtime.get("/system/console/services.json").body();
    }

    /**
     * The replayer against the runtime, 8 requests/s for about three minutes (longer than the test:
     * the drain needs load until its end), in the background.
     */
    private static Thread startLoad() {
        List<TraceRequest> workload = new WorkloadGenerator(11, 8).generate(1440).requests().stream()
                .map(t -> new TraceRequest(t.arrivalSeconds(), Math.min(t.inputTokens(), 4000),
                        Math.min(t.outputTokens(), 300), t.promptKey())).toList();
        Thread t = new Thread(() -> {
            try {
                new Replayer(runtime.base(), "balanceroute-sim", 1, 256, null).continuousUsage(true).run(workload);
            } catch (InterruptedException e) {
                // the test is over
            }
        }, "console-it-load");
        t.setDaemon(true);
        t.start();
        return t;
    }

    static WebDriver browser(Path profile) throws IOException {
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString()); // no Selenium Manager download
        Files.createDirectories(profile);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toString());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                "--user-data-dir=" + profile, "--window-size=1280,1800");
        return new ChromeDriver(options);
    }

    private static Object js(String script, Object... args) {
        return ((JavascriptExecutor) browser).executeScript(script, args);
    }

    private static void screenshot(String name) throws IOException {
        Path target = Path.of(System.getProperty("balanceroute.itests.target", "target")).resolve(name);
        Files.createDirectories(target.getParent());
        Files.write(target, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
        System.out.println("ConsolePluginIT: screenshot " + target.toAbsolutePath());
    }

    private static JsonNode policies() throws IOException {
        return RuntimeProcess.JSON.readTree(runtime.get("/admin/policies").body());
    }

    private static HttpResponse<String> post(String path, String body, String token) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(runtime.base() + path)).header("Authorization", AUTH)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("X-BalanceRoute-CSRF", token);
        }
        // a client of its own per POST: the server may close a connection after refusing a POST whose
        // body it did not read (403), and a pooled client sent the next POST on it ("HTTP/1.1 header
        // parser received no bytes", a clean-clone CI)
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                .send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Waits for the page's result box {@code id} (br-result: the policy's; br-fleet-result: a drain's) to show that outcome. */
    private static String result(String id, String outcome) throws InterruptedException {
        RuntimeProcess.await("the page's " + id + " to be " + outcome, UI,
                () -> outcome.equals(browser.findElement(By.id(id)).getAttribute("data-outcome")));
        return browser.findElement(By.id(id)).getText();
    }

    @Test
    public void a_theConsoleAndThePageAskForCredentials() throws Exception {
        for (String path : List.of("/system/console/balanceroute", "/system/console/balanceroute/state.json",
                "/admin/policies")) {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(runtime.base() + path)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(path, 401, r.statusCode());
        }
    }

    @Test
    public void b_logsInAndSeesOneChartPerInstanceWithAMovingLinePerWorker() throws Exception {
        browser.get(page);
        RuntimeProcess.await("a chart per instance with one line per worker", UI, () -> Boolean.TRUE.equals(js(
                "var b = window.balanceroute && window.balanceroute.histories['default']; return !!b && b.workers === " + WORKERS + " && b.charts.length === "
                        + INSTANCES.length + " && b.charts.every(function (c) { return c.plot.series.length === "
                        + (PER_INSTANCE + 1) + "; })")));
        for (int i = 0; i < INSTANCES.length; i++) {
            assertTrue(browser.findElement(By.id("br-instance-" + i)).getText().contains("Instance " + INSTANCES[i]));
            List<WebElement> legend = browser.findElements(By.cssSelector("#br-chart-" + i + " .u-legend .u-series"));
            assertEquals("instance " + INSTANCES[i] + "'s legend: time and one per worker", PER_INSTANCE + 1, legend.size());
            for (int k = 0; k < PER_INSTANCE; k++) {
                String label = legend.get(k + 1).getText();
                assertTrue(label, label.contains("worker " + (i * PER_INSTANCE + k)));
            }
        }
        String first = (String) js("return JSON.stringify(window.balanceroute.histories['default'].loads.map(function (l) { return l[l.length - 1]; }))");
        RuntimeProcess.await("the lines to move under load", UI, () -> {
            String now = (String) js("return JSON.stringify(window.balanceroute.histories['default'].loads.map(function (l) { return l[l.length - 1]; }))");
            Boolean loaded = (Boolean) js("return window.balanceroute.histories['default'].loads.some(function (l) { return l.some(function (v) { return v > 0; }); })");
            return !now.equals(first) && Boolean.TRUE.equals(loaded);
        });
        assertEquals(WORKERS, browser.findElements(By.cssSelector("#br-fleet tr[id^='br-worker-']")).size());
        for (int g = 0; g < WORKERS; g++) {
            WebElement row = browser.findElement(By.id("br-worker-" + g));
            assertTrue(row.getText(), row.getText().contains(engines.decodeUrl(g)));
            assertEquals("serving", row.getAttribute("data-state"));
        }
        assertFalse(browser.findElement(By.id("br-status")).getText().contains("does not answer"));
        screenshot("console-plugin-load.png");
    }

    @Test
    public void c_warnsWhileTheDefaultCredentialsAreInForce() {
        WebElement w = browser.findElement(By.id("br-warning"));
        assertTrue(w.isDisplayed());
        assertTrue(w.getText(), w.getText().contains("admin / admin"));
    }

    @Test
    public void d_switchesBr0ToBrhSurvivalInThePage() throws Exception {
        assertEquals("br0", policies().path("active").asText());
        RuntimeProcess.await("the policy list", UI, () -> browser.findElements(
                By.cssSelector("#br-policy option[value='brh-survival']")).size() == 1);
        new Select(browser.findElement(By.id("br-policy"))).selectByValue("brh-survival");
        browser.findElement(By.id("br-apply")).click();
        String text = result("br-result", "applied");
        assertTrue(text, text.contains("brh-survival"));
        assertEquals("the router's active policy, through the admin API", "brh-survival",
                policies().path("active").asText());
        RuntimeProcess.await("the page to show brh-survival active", UI,
                () -> browser.findElement(By.id("br-active")).getText().equals("brh-survival"));
    }

    @Test
    public void e_anOutOfRangeValueIsRefusedAndTheOldOneStaysInForce() throws Exception {
        RuntimeProcess.await("the form rebuilt with the values in force", UI,
                () -> "brh-survival".equals(js("return window.balanceroute.formPolicy")));
        JsonNode before = policies();
        String rMax = before.path("parameters").path("rMax").asText();
        RuntimeProcess.await("the rMax field", UI, () -> !browser.findElements(By.id("br-param-rMax")).isEmpty());
        WebElement field = browser.findElement(By.id("br-param-rMax"));
        field.clear();
        field.sendKeys("99");
        browser.findElement(By.id("br-apply")).click();
        String text = result("br-result", "refused");
        assertTrue(text, text.contains("rMax"));
        JsonNode after = policies();
        assertEquals("brh-survival", after.path("active").asText());
        assertEquals("rMax in force is unchanged", rMax, after.path("parameters").path("rMax").asText());
        assertEquals(rMax, browser.findElement(By.id("br-inforce-rMax")).getText());
        screenshot("console-plugin-refused.png");
    }

    @Test
    public void f_aPostWithoutTheCsrfTokenIsRefusedAndChangesNothing() throws Exception {
        String change = "{\"policy\": \"jsq\"}";
        HttpResponse<String> none = post("/system/console/balanceroute/policy", change, null);
        assertEquals(none.body(), 403, none.statusCode());
        assertTrue(none.body(), none.body().contains("CSRF"));
        HttpResponse<String> forged = post("/system/console/balanceroute/policy", change, "v1.0.forged");
        assertEquals(forged.body(), 403, forged.statusCode());
        // the same from the logged-in page, without the header
        Object status = ((JavascriptExecutor) browser).executeAsyncScript(
                "var done = arguments[arguments.length - 1];"
                        + "fetch(location.protocol + '//' + location.host + '/system/console/balanceroute/policy',"
                        + " {method: 'POST', credentials: 'same-origin', headers: {'Content-Type': 'application/json'},"
                        + " body: JSON.stringify({policy: 'jsq'})}).then(function (r) { done(r.status); },"
                        + " function (e) { done(String(e)); });");
        assertEquals(403L, status);
        assertEquals("nothing changed", "brh-survival", policies().path("active").asText());
    }

    @Test
    public void g_aHotDeployedPolicyAppearsWithItsSchemasTunables() throws Exception {
        Path example = Path.of(System.getProperty("balanceroute.example.bundle"));
        Files.copy(example, runtime.home.resolve("deploy").resolve(example.getFileName()),
                StandardCopyOption.REPLACE_EXISTING);
        RuntimeProcess.await("least-running in the page's policy list", UI, () -> browser.findElements(
                By.cssSelector("#br-policy option[value='least-running']")).size() == 1);
        new Select(browser.findElement(By.id("br-policy"))).selectByValue("least-running");
        JsonNode state = state();
        JsonNode schema = null;
        for (JsonNode p : state.path("policies").path("list")) {
            if (p.path("name").asText().equals("least-running")) {
                schema = p.path("parameters");
            }
        }
        assertTrue("least-running in PolicyAdmin's list", schema != null);
        List<String> ids = new ArrayList<>();
        schema.forEach(d -> ids.add(d.path("id").asText()));
        RuntimeProcess.await("the form of least-running", UI, () -> {
            if (ids.isEmpty()) {
                return browser.findElement(By.id("br-params")).getText().contains("least-running has no tunables");
            }
            return ids.stream().allMatch(id -> !browser.findElements(By.id("br-param-" + id)).isEmpty());
        });
        System.out.println("ConsolePluginIT: least-running's tunables in the page, from its schema: " + ids);
        // back to the policy in force, for the picture
        new Select(browser.findElement(By.id("br-policy"))).selectByValue("brh-survival");
        screenshot("console-plugin.png");
    }

    /** The page's state.json without the history (what the page shows now). */
    private static JsonNode state() throws IOException {
        return RuntimeProcess.JSON.readTree(runtime.get("/system/console/balanceroute/state.json?since="
                + Long.MAX_VALUE).body());
    }

    /** Worker g in state.json's newest sample: {"worker", "load", "running", "queued", "state", ...}. */
    private static JsonNode worker(JsonNode state, int g) {
        return state.path("latest").path("workers").path(g);
    }

    /** Requests running or queued on worker g in the newest sample. */
    private static int onWorker(JsonNode state, int g) {
        return worker(state, g).path("running").asInt() + worker(state, g).path("queued").asInt();
    }

    /** Whether another worker than g runs something: the load still runs. */
    private static boolean othersLoaded(JsonNode state, int g) {
        for (int o = 0; o < WORKERS; o++) {
            if (o != g && worker(state, o).path("running").asInt() > 0) {
                return true;
            }
        }
        return false;
    }

    private static String rowState(int g) {
        return browser.findElement(By.id("br-worker-" + g)).getAttribute("data-state");
    }

    /** Waits until state.json satisfies the condition (not answering: not yet). */
    private static void awaitState(String what, Duration timeout, Predicate<JsonNode> condition) throws InterruptedException {
        RuntimeProcess.await(what, timeout, () -> {
            try {
                return condition.test(state());
            } catch (IOException e) {
                return false;
            }
        });
    }

    @Test
    public void h_drainsAWorkerWithItsButtonAndUndrainsIt() throws Exception {
        // the busiest worker: the policy may fill one instance before the other
        int[] busiest = {-1};
        awaitState("requests on the workers under load", UI, state -> {
            for (int w = 0; w < WORKERS; w++) {
                if (onWorker(state, w) > 0 && (busiest[0] < 0 || onWorker(state, w) > onWorker(state, busiest[0]))) {
                    busiest[0] = w;
                }
            }
            return busiest[0] >= 0;
        });
        int g = busiest[0];
        browser.findElement(By.id("br-drain-" + g)).click();
        String text = result("br-fleet-result", "applied");
        assertTrue(text, text.contains("worker " + g) && text.contains("draining"));
        RuntimeProcess.await("worker " + g + " draining in the page", UI,
                () -> List.of("draining", "drained").contains(rowState(g)));
        assertTrue("its drain button is off while it drains", !browser.findElement(By.id("br-drain-" + g)).isEnabled());

        // from the first sample that shows the drain on: what runs or waits there only shrinks (no new
        // placement), down to nothing, while the other workers still run requests; then a few more
        // samples with nothing there and load elsewhere
        long[] seen = {-1, 0, Integer.MAX_VALUE, 0}; // last seq, first drained seq, requests on it, samples drained
        List<String> trace = new ArrayList<>();
        awaitState("worker " + g + " drained while the others run requests", Duration.ofSeconds(90), state -> {
            long seq = state.path("history").path("seq").asLong();
            JsonNode w = worker(state, g);
            if (seq == seen[0] || !w.path("draining").asBoolean()) {
                return false;
            }
            seen[0] = seq;
            int on = onWorker(state, g);
            trace.add(seq + ":" + w.path("state").asText() + ":" + on);
            assertTrue("a new request on draining worker " + g + ": " + trace, on <= seen[2]);
            seen[2] = on;
            if (on == 0 && othersLoaded(state, g)) {
                assertEquals("drained", w.path("state").asText());
                seen[3]++;
            }
            return seen[3] >= 3;
        });
        System.out.println("ConsolePluginIT: worker " + g + " drained (seq:state:running+queued) " + trace);
        RuntimeProcess.await("worker " + g + " drained in the page", UI, () -> "drained".equals(rowState(g)));
        screenshot("console-plugin-fleet.png");

        // a drain of a pool this runtime does not route: 404 with the reason, from the page, with the token
        String other = (String) ((JavascriptExecutor) browser).executeAsyncScript(
                "var done = arguments[arguments.length - 1];"
                        + "fetch(location.protocol + '//' + location.host + '/system/console/balanceroute/drain',"
                        + " {method: 'POST', credentials: 'same-origin', headers: {'Content-Type': 'application/json',"
                        + " 'X-BalanceRoute-CSRF': window.balanceroute.csrf}, body: JSON.stringify({pool: 'other', worker: '0'})})"
                        + ".then(function (r) { return r.text().then(function (t) { done(r.status + ' ' + t); }); },"
                        + " function (e) { done(String(e)); });");
        assertTrue(other, other.startsWith("404 ") && other.contains("no pool 'other'"));

        browser.findElement(By.id("br-undrain-" + g)).click();
        text = result("br-fleet-result", "applied");
        assertTrue(text, text.contains("drain ended"));
        RuntimeProcess.await("worker " + g + " serving in the page", UI, () -> "serving".equals(rowState(g)));
        assertFalse("serving in state.json", worker(state(), g).path("draining").asBoolean());

        // serving is taking requests: the policy may well keep filling the other instance (its score
        // weighs each instance's barrier), so that one is drained with its button, which leaves the
        // new requests to worker g's instance; then it is undrained
        int b = 1 - g / PER_INSTANCE;
        RuntimeProcess.await("instance " + INSTANCES[b] + "'s drain button on", UI,
                () -> browser.findElement(By.id("br-drain-instance-" + b)).isEnabled());
        browser.findElement(By.id("br-drain-instance-" + b)).click();
        text = result("br-fleet-result", "applied");
        assertTrue(text, text.contains("instance " + INSTANCES[b]) && text.contains("draining"));
        for (int o = b * PER_INSTANCE; o < (b + 1) * PER_INSTANCE; o++) {
            int w = o;
            RuntimeProcess.await("worker " + w + " of instance " + INSTANCES[b] + " draining", UI,
                    () -> List.of("draining", "drained").contains(rowState(w)));
        }
        awaitState("worker " + g + " taking requests again", UI, state -> onWorker(state, g) > 0);
        browser.findElement(By.id("br-undrain-instance-" + b)).click();
        text = result("br-fleet-result", "applied");
        assertTrue(text, text.contains("drain ended"));
        for (int o = b * PER_INSTANCE; o < (b + 1) * PER_INSTANCE; o++) {
            int w = o;
            RuntimeProcess.await("worker " + w + " of instance " + INSTANCES[b] + " serving again", UI,
                    () -> "serving".equals(rowState(w)));
        }
    }
}
