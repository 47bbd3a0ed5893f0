package org.balanceroute.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.balanceroute.testkit.RawHttp;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * What an operator reads in a real runtime process's log: the one line that says it is ready, where
 * and with what; and the access log, off as shipped, then turned on through its config file, one
 * logfmt line per finished request on the logger {@code org.balanceroute.access}: a stream, a plain
 * answer and a refused request, each with what is known of it.
 */
public class OperatorLogIT {

    static final String MODEL = "balanceroute-sim";
    /** The logger org.balanceroute.access as the runtime's slf4j-simple shows it (its short name). */
    static final String ACCESS = " INFO access - ";

    private static SimCluster engines;
    private static RuntimeProcess runtime;

    @BeforeClass
    public static void start() throws Exception {
        engines = SimCluster.start(SimConfig.builder().prefill(1).decode(2).portBase(0).timeFactor(0.01).build());
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "balanceroute-operator-log");
        runtime = new RuntimeProcess("access", work, RuntimeProcess.poolConfig(engines, 1, 2))
                .javaOpts("-Xmx512m -Dfelix.fileinstall.enableConfigSave=false").start(null).awaitUp();
    }

    @AfterClass
    public static void stop() throws Exception {
        if (runtime != null) {
            runtime.close();
        }
        if (engines != null) {
            engines.close();
        }
    }

    static RawHttp.Answer post(String json) throws Exception {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        return RawHttp.send(runtime.httpPort, RawHttp.head("POST", "/v1/completions", runtime.httpPort,
                "Content-Type: application/json", "Content-Length: " + b.length), b, 30_000);
    }

    static List<String> lines(String containing) {
        try {
            return Files.readAllLines(runtime.home.resolve("runtime.log"), StandardCharsets.UTF_8).stream()
                    .filter(l -> l.contains(containing)).toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static List<String> accessLines() {
        return lines(ACCESS);
    }

    /** The access line of the request {@code answer} answered (its X-Request-Id). */
    static String line(List<String> lines, RawHttp.Answer answer) {
        String id = answer.header("X-Request-Id");
        List<String> of = lines.stream().filter(l -> field(l, "id").equals(id)).toList();
        assertEquals("one line with id " + id + ": " + lines, 1, of.size());
        return of.get(0);
    }

    /** The logfmt value of {@code key} in {@code line}. */
    static String field(String line, String key) {
        Matcher m = Pattern.compile("(?:^|\\s)" + key + "=(\"(?:[^\"\\\\]|\\\\.)*\"|\\S+)").matcher(line);
        assertTrue(key + " in " + line, m.find());
        return m.group(1);
    }

    @Test
    public void oneLineSaysTheRuntimeIsReadyWhereAndWithWhat() throws Exception {
        RuntimeProcess.await("the ready line", Duration.ofSeconds(30), () -> !lines(" - ready: ").isEmpty());
        List<String> ready = lines(" - ready: ");
        assertEquals(ready.toString(), 1, ready.size());
        String line = ready.get(0);
        assertTrue(line, line.contains("ready: http://127.0.0.1:" + runtime.httpPort + " (OpenAI API /v1"));
        assertTrue(line, line.contains("; pool default: model " + MODEL + ", policy br0, prefill 1 instance(s), decode "));
        assertTrue(line, line.contains("(2 x B 64)"));
        assertTrue(line, line.endsWith("; snapshot store local"));
    }

    @Test
    public void offAsShippedThenOneLinePerFinishedRequest() throws Exception {
        assertEquals(200, post("{\"model\": \"" + MODEL + "\", \"prompt\": \"hi\", \"max_tokens\": 3}").status());
        assertEquals("off as shipped", List.of(), accessLines());

        Path cfg = runtime.home.resolve("config/org.balanceroute.proxy.cfg");
        RuntimeProcess.writeWatched(cfg, Files.readString(cfg).replaceAll("(?m)^accessLog = .*$", "accessLog = true"));
        RuntimeProcess.await("accessLog in force", Duration.ofSeconds(15),
                () -> "true".equals(runtime.configValue("org.balanceroute.proxy", "accessLog")));

        RawHttp.Answer stream = post("{\"model\": \"" + MODEL + "\", \"prompt\": \"hello\", \"max_tokens\": 7,"
                + " \"ignore_eos\": true, \"stream\": true}");
        assertEquals(200, stream.status());
        RawHttp.Answer plain = post("{\"model\": \"" + MODEL + "\", \"prompt\": \"hello\", \"max_tokens\": 5,"
                + " \"ignore_eos\": true}");
        assertEquals(200, plain.status());
        RawHttp.Answer refused = post("{\"model\": \"" + MODEL + "\", \"prompt\": \"hello\", \"max_tokens\": -1}");
        assertEquals(400, refused.status());
        RuntimeProcess.await("three access lines", Duration.ofSeconds(15), () -> accessLines().size() >= 3);

        List<String> lines = accessLines();
        assertEquals(lines.toString(), 3, lines.size());
        // by id: a stream's line is written when its end is relayed, maybe after the next request's
        String s = line(lines, stream);
        assertEquals(MODEL, field(s, "model"));
        assertEquals("ok", field(s, "outcome"));
        assertEquals("7", field(s, "output_tokens"));
        assertTrue(s, field(s, "worker").matches("[01]"));
        assertTrue(s, Long.parseLong(field(s, "prompt_tokens")) > 0);
        assertTrue(s, Double.parseDouble(field(s, "ttft_ms")) <= Double.parseDouble(field(s, "duration_ms")));
        String p = line(lines, plain);
        assertEquals("ok", field(p, "outcome"));
        assertEquals("5", field(p, "output_tokens"));
        assertEquals("-", field(p, "ttft_ms"));
        String r = line(lines, refused);
        assertEquals("rejected", field(r, "outcome"));
        assertEquals("-", field(r, "worker"));
        assertEquals("-", field(r, "prompt_tokens"));
        assertEquals("refused before its model was read", "-", field(r, "model"));
    }
}
