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
 * replayer. Logs in, sees one chart line per worker move, switches br0 to brh-survival in the page
 * (the router's active policy changes, read through the admin API), submits an out-of-range value
 * and sees the refusal while the old value stays in force, sees a POST without the CSRF token
 * refused, and sees a hot-deployed policy appear with the tunables of its schema. Screenshots go to
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
        String pool = RuntimeProcess.poolConfig(engines, 1, WORKERS);
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

    /** The replayer against the runtime, 8 requests/s for about a minute, in the background. */
    private static Thread startLoad() {
        List<TraceRequest> workload = new WorkloadGenerator(11, 8).generate(480).requests().stream()
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

    private static WebDriver browser(Path profile) throws IOException {
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

    private static String result(String outcome) throws InterruptedException {
        RuntimeProcess.await("the page's result to be " + outcome, UI,
                () -> outcome.equals(browser.findElement(By.id("br-result")).getAttribute("data-outcome")));
        return browser.findElement(By.id("br-result")).getText();
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
    public void b_logsInAndSeesOneMovingChartLinePerWorker() throws Exception {
        browser.get(page);
        RuntimeProcess.await("a chart with one line per worker", UI, () -> Boolean.TRUE.equals(js(
                "var b = window.balanceroute; return !!b && b.workers === " + WORKERS
                        + " && !!b.loadChart && b.loadChart.series.length === " + (WORKERS + 1))));
        List<WebElement> legend = browser.findElements(By.cssSelector("#br-load-chart .u-legend .u-series"));
        assertEquals("legend entries: time and one per worker", WORKERS + 1, legend.size());
        for (int g = 0; g < WORKERS; g++) {
            assertTrue(legend.get(g + 1).getText(), legend.get(g + 1).getText().contains("worker " + g));
        }
        String first = (String) js("return JSON.stringify(window.balanceroute.loads.map(function (l) { return l[l.length - 1]; }))");
        RuntimeProcess.await("the lines to move under load", UI, () -> {
            String now = (String) js("return JSON.stringify(window.balanceroute.loads.map(function (l) { return l[l.length - 1]; }))");
            Boolean loaded = (Boolean) js("return window.balanceroute.loads.some(function (l) { return l.some(function (v) { return v > 0; }); })");
            return !now.equals(first) && Boolean.TRUE.equals(loaded);
        });
        assertEquals(WORKERS, browser.findElements(By.cssSelector("#br-workers tbody tr")).size());
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
        String text = result("applied");
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
        String text = result("refused");
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
        JsonNode state = RuntimeProcess.JSON.readTree(runtime.get("/system/console/balanceroute/state.json?since="
                + Long.MAX_VALUE).body());
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
}
