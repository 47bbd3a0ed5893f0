package org.balanceroute.itests;

import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.balanceroute.testkit.RawHttp;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Bad input, case by case, against a real runtime process ({@code ./balanceroute run}) in front of a
 * simulated cluster, over real HTTP (a socket written by hand, so that any header, any
 * Content-Type and any body shape can be sent), plus configuration files edited under the running
 * runtime and the command-line tools given bad traces and flags. Each case has its expected answer;
 * after every case a valid request still succeeds and the router's snapshot holds no load. Every
 * case runs even when one fails; the failures are listed together. The "Bad input" table of
 * docs/reliability-and-security.md lists the same cases with the same expected status
 * ({@link #theBadInputTableListsEveryCase}).
 */
public class BadInputIT {

    static final String MODEL = "balanceroute-sim";
    static final String VALID = "{\"model\": \"" + MODEL + "\", \"prompt\": \"hi\", \"max_tokens\": 2, \"ignore_eos\": true}";
    static final String AUTH = "Authorization: Basic "
            + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8));
    static final int TIMEOUT = 15_000;

    private static SimCluster engines;
    private static RuntimeProcess runtime;
    private static Path traces;

    /** What a case did: an HTTP status (0: no answer) or an exit status, and the body or output. */
    record Outcome(int code, String text, RawHttp.Answer answer) {
    }

    interface Probe {
        Outcome run() throws Exception;
    }

    /**
     * One case: {@code expected} is the "Bad input" table's "expected" column ("400", "exit 2", ...),
     * {@code code} the status or exit code, {@code fragment} text the answer must contain,
     * {@code param} the OpenAI error's {@code param} (checked when {@code openAi}).
     */
    record Case(String group, String name, int code, String expected, boolean openAi, String param, String fragment,
            Probe probe, Predicate<Outcome> extra, String extraWhat) {
    }

    @BeforeClass
    public static void start() throws Exception {
        engines = SimCluster.start(SimConfig.builder().prefill(1).decode(2).portBase(0).timeFactor(0.01).build());
        Path work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "balanceroute-badinput");
        traces = Files.createDirectories(work.resolve("traces"));
        String pool = RuntimeProcess.poolConfig(engines, 1, 2);
        // FileInstall's write-back off: the cases edit configuration files and must read back only their own edits;
        // its poll at 200 ms (1 s shipped): each configuration case waits for two polls
        runtime = new RuntimeProcess("badinput", work, pool)
                .javaOpts("-Xmx512m -Dfelix.fileinstall.enableConfigSave=false -Dfelix.fileinstall.poll=200").start(null).awaitUp();
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

    // ---------------------------------------------------------------------------------------------
    // the cases

    static List<Case> cases() throws IOException {
        List<Case> c = new ArrayList<>();
        String cmp = "/v1/completions";
        String chat = "/v1/chat/completions";
        // the OpenAI API: JSON
        c.add(api("invalid JSON (cut short)", 400, null, "not valid JSON", post(cmp, "{\"model\":")));
        c.add(api("trailing bytes after the JSON object", 400, null, "not valid JSON", post(cmp, VALID + " x")));
        c.add(api("empty body", 400, null, "not valid JSON", post(cmp, "")));
        c.add(api("a JSON array, not an object", 400, null, "must be a JSON object", post(cmp, "[1]")));
        c.add(api("JSON null", 400, null, "must be a JSON object", post(cmp, "null")));
        c.add(api("invalid UTF-8 in a string", 400, null, "not valid JSON",
                post(cmp, bytes("{\"model\": \"" + MODEL + "\", \"prompt\": \"", new byte[] {(byte) 0xff, (byte) 0xfe}, "\"}"))));
        c.add(api("JSON nested 3000 deep", 400, null, "not valid JSON",
                post(cmp, "{\"model\": \"m\", \"x\": " + "[".repeat(3000) + "]".repeat(3000) + "}")));
        c.add(api("duplicate key, the last one invalid", 400, "max_tokens", "max_tokens",
                post(cmp, "{\"model\": \"" + MODEL + "\", \"prompt\": \"hi\", \"max_tokens\": 2, \"max_tokens\": 0}")));
        // model
        c.add(api("`model` missing", 400, "model", "'model' is required", post(cmp, "{\"prompt\": \"hi\"}")));
        c.add(api("`model` a number", 400, "model", "'model' is required", post(cmp, "{\"model\": 5, \"prompt\": \"hi\"}")));
        c.add(api("`model` unknown (the engine's 404 relayed)", 404, "model", "does not exist",
                post(cmp, VALID.replace(MODEL, "gpt-9"))));
        // prompt
        c.add(api("`prompt` missing", 400, "prompt", "'prompt' is required", post(cmp, "{\"model\": \"" + MODEL + "\"}")));
        c.add(api("`prompt` empty string", 400, "prompt", "must not be empty", post(cmp, body("\"prompt\": \"\""))));
        c.add(api("`prompt` empty array", 400, "prompt", "'prompt' is required", post(cmp, body("\"prompt\": []"))));
        c.add(api("`prompt` a number", 400, "prompt", "'prompt' is required", post(cmp, body("\"prompt\": 5"))));
        c.add(api("`prompt` nested token ids (a batch)", 400, "prompt", "batched prompts",
                post(cmp, body("\"prompt\": [[1, 2], [3]]"))));
        c.add(api("`prompt` a list of strings (a batch)", 400, "prompt", "batched prompts",
                post(cmp, body("\"prompt\": [\"a\", \"b\"]"))));
        c.add(api("token id not an integer (1.5)", 400, "prompt", "[0, 2147483647]", post(cmp, body("\"prompt\": [1, 1.5]"))));
        c.add(api("token id negative", 400, "prompt", "[0, 2147483647]", post(cmp, body("\"prompt\": [1, -2]"))));
        c.add(api("token id 2^31", 400, "prompt", "[0, 2147483647]", post(cmp, body("\"prompt\": [1, 2147483648]"))));
        c.add(api("token id of 20 digits", 400, "prompt", "[0, 2147483647]",
                post(cmp, body("\"prompt\": [99999999999999999999]"))));
        c.add(api("token id `true`", 400, "prompt", "[0, 2147483647]", post(cmp, body("\"prompt\": [1, true]"))));
        // max_tokens, n, stream
        c.add(api("`max_tokens` 0", 400, "max_tokens", "[1, 131072]", post(cmp, prompt("\"max_tokens\": 0"))));
        c.add(api("`max_tokens` negative", 400, "max_tokens", "[1, 131072]", post(cmp, prompt("\"max_tokens\": -5"))));
        c.add(api("`max_tokens` huge (10^8)", 400, "max_tokens", "maxTokensLimit",
                post(cmp, prompt("\"max_tokens\": 100000000"))));
        c.add(api("`max_tokens` a string", 400, "max_tokens", "[1, 131072]", post(cmp, prompt("\"max_tokens\": \"5\""))));
        c.add(api("`max_tokens` 2.5", 400, "max_tokens", "[1, 131072]", post(cmp, prompt("\"max_tokens\": 2.5"))));
        c.add(api("`max_completion_tokens` 0 (chat)", 400, "max_completion_tokens", "[1, 131072]",
                post(chat, chat("\"max_completion_tokens\": 0"))));
        c.add(api("`n` 2", 400, "n", "'n' must be 1", post(cmp, prompt("\"max_tokens\": 2, \"n\": 2"))));
        c.add(api("`stream` a string", 400, "stream", "must be a boolean", post(cmp, prompt("\"stream\": \"yes\""))));
        c.add(api("`stream_options` a string", 400, "stream_options", "must be an object",
                post(cmp, prompt("\"stream\": true, \"stream_options\": \"yes\""))));
        c.add(api("`stream_options` without `stream: true`", 400, "stream_options", "'stream': true",
                post(cmp, prompt("\"stream_options\": {\"include_usage\": true}"))));
        c.add(api("`stream_options.include_usage` a number", 400, "stream_options", "include_usage",
                post(cmp, prompt("\"stream\": true, \"stream_options\": {\"include_usage\": 1}"))));
        c.add(ok("unsupported field (`foo`: passed on, the engine ignores it)", post(cmp, prompt("\"max_tokens\": 2, \"ignore_eos\": true, \"foo\": 1")),
                "\"completion_tokens\":2"));
        // chat messages
        c.add(api("`messages` missing (chat)", 400, "messages", "'messages' is required", post(chat, "{\"model\": \"" + MODEL + "\"}")));
        c.add(api("`messages` empty", 400, "messages", "'messages' is required", post(chat, body("\"messages\": []"))));
        c.add(api("`messages` a string", 400, "messages", "'messages' is required", post(chat, body("\"messages\": \"hi\""))));
        c.add(api("`messages` of numbers", 400, "messages", "messages[0]", post(chat, body("\"messages\": [1, 2]"))));
        c.add(api("a message without `role`", 400, "messages", "messages[1]",
                post(chat, body("\"messages\": [{\"role\": \"user\", \"content\": \"a\"}, {\"content\": \"b\"}]"))));
        // limits, media types, slow and broken clients
        byte[] big = prompt("\"max_tokens\": 2, \"pad\": \"" + "x".repeat(5 << 20) + "\"").getBytes(StandardCharsets.UTF_8);
        c.add(api("body over maxBodyBytes (5 MiB)", 413, null, "more than the 4194304 accepted", post(cmp, big)));
        c.add(api("body over maxBodyBytes, chunked (no Content-Length)", 413, null, "more than the 4194304 accepted",
                () -> outcome(RawHttp.send(runtime.httpPort, RawHttp.head("POST", cmp, runtime.httpPort,
                        "Content-Type: application/json", "Transfer-Encoding: chunked"), chunked(big), TIMEOUT))));
        c.add(api("Content-Type text/plain", 415, null, "Content-Type application/json",
                send("POST", cmp, VALID, "Content-Type: text/plain")));
        c.add(api("Content-Type form-urlencoded (curl -d without -H)", 415, null, "application/x-www-form-urlencoded",
                send("POST", cmp, VALID, "Content-Type: application/x-www-form-urlencoded")));
        c.add(ok("no Content-Type (taken as JSON)", send("POST", cmp, VALID), "\"completion_tokens\":2"));
        c.add(ok("Content-Type application/json; charset=utf-8", send("POST", cmp, VALID,
                "Content-Type: application/json; charset=utf-8"), "\"completion_tokens\":2"));
        c.add(ok("a body sent slowly (4 pieces, 300 ms apart)", () -> {
            byte[] b = VALID.getBytes(StandardCharsets.UTF_8);
            int q = b.length / 4;
            byte[][] pieces = {java.util.Arrays.copyOfRange(b, 0, q), java.util.Arrays.copyOfRange(b, q, 2 * q),
                java.util.Arrays.copyOfRange(b, 2 * q, 3 * q), java.util.Arrays.copyOfRange(b, 3 * q, b.length)};
            return outcome(RawHttp.send(runtime.httpPort, RawHttp.head("POST", cmp, runtime.httpPort,
                    "Content-Type: application/json", "Content-Length: " + b.length), pieces, 300, TIMEOUT));
        }, "\"completion_tokens\":2"));
        c.add(new Case("api", "a body that stops halfway (client gives up after 2 s)", 0, "no answer", false, null, "", () -> {
            byte[] b = VALID.getBytes(StandardCharsets.UTF_8);
            return outcome(RawHttp.send(runtime.httpPort, RawHttp.head("POST", cmp, runtime.httpPort,
                    "Content-Type: application/json", "Content-Length: " + (b.length + 100)), b, 2000));
        }, o -> o.answer != null && o.answer.problem() != null, "no answer while the body is incomplete"));
        // refused by Jetty before the API: the same OpenAI error bodies (JettyErrorBodies)
        c.add(api("header block over 16 KiB (Jetty, before the API)", 431, null, "at most 16384 bytes",
                send("POST", cmp, VALID, "Content-Type: application/json", "X-Pad: " + "a".repeat(20_000))));
        c.add(api("URI over 16 KiB (Jetty, before the API)", 414, null, "URI Too Long",
                send("GET", "/v1/models?pad=" + "a".repeat(20_000), null)));
        c.add(api("Content-Length not a number (Jetty, before the API)", 400, null, "Invalid Content-Length",
                () -> outcome(RawHttp.send(runtime.httpPort, RawHttp.head("POST", cmp, runtime.httpPort,
                        "Content-Type: application/json", "Content-Length: abc"), VALID.getBytes(StandardCharsets.UTF_8), TIMEOUT))));
        c.add(api("malformed request line (Jetty, before the API)", 400, null, "Bad Request: No URI",
                raw("GARBAGE\r\n\r\n")));
        c.add(api("header name with a space (Jetty, before the API)", 400, null, "Illegal character",
                raw("GET /v1/models HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n")));
        c.add(api("HTTP/1.1 without Host (Jetty, before the API)", 400, null, "No Host",
                raw("GET /v1/models HTTP/1.1\r\nConnection: close\r\n\r\n")));
        c.add(api("GET on /v1/completions", 405, null, "Method Not Allowed", send("GET", cmp, null)));
        c.add(api("unknown path /v1/embeddings", 404, null, "no such endpoint", send("POST", "/v1/embeddings", VALID,
                "Content-Type: application/json")));
        c.add(new Case("api", "`X-Request-Id` of 300 characters (replaced by a UUID)", 200, "200", false, null,
                "\"completion_tokens\":2", send("POST", cmp, VALID, "Content-Type: application/json",
                        "X-Request-Id: " + "r".repeat(300)),
                o -> o.answer != null && o.answer.header("X-Request-Id") != null && o.answer.header("X-Request-Id").length() == 36,
                "the answer's X-Request-Id is a fresh UUID"));
        c.add(ok("client `kv_transfer_params` with `remote_host` (replaced by the prefill's handle)",
                post(cmp, prompt("\"max_tokens\": 2, \"ignore_eos\": true, \"kv_transfer_params\": {\"do_remote_prefill\": true, \"remote_host\":"
                        + " \"10.9.9.9\", \"remote_port\": 1, \"remote_engine_id\": \"x\", \"remote_request_id\": \"y\"}")),
                "\"completion_tokens\":2"));

        // the admin API
        c.add(api("admin: no credentials", 401, null, "authentication required", admin("GET", "/admin/policies", null)));
        c.add(api("admin: wrong password", 401, null, "authentication required", admin("GET", "/admin/policies", null,
                basic("admin", "wrong"))));
        c.add(api("admin: wrong user", 401, null, "authentication required", admin("GET", "/admin/policies", null,
                basic("root", "admin"))));
        c.add(api("admin: malformed Basic header", 401, null, "authentication required", admin("GET", "/admin/policies",
                null, "Authorization: Basic !!!")));
        c.add(api("admin: a Bearer token", 401, null, "authentication required", admin("GET", "/admin/policies", null,
                "Authorization: Bearer admin")));
        c.add(unchanged(api("admin: unknown policy", 400, "policy", "unknown policy 'nope'",
                admin("PUT", "/admin/policy", "{\"policy\": \"nope\"}", AUTH, "Content-Type: application/json"))));
        c.add(unchanged(api("admin: unknown parameter", 400, "foo", "foo",
                admin("PUT", "/admin/policy", "{\"policy\": \"br0\", \"parameters\": {\"foo\": 1}}", AUTH,
                        "Content-Type: application/json"))));
        c.add(unchanged(api("admin: parameter of the wrong type", 400, "rMax", "rMax must be an integer in [1, 16]",
                admin("PUT", "/admin/policy", "{\"policy\": \"br0\", \"parameters\": {\"rMax\": \"x\"}}", AUTH,
                        "Content-Type: application/json"))));
        c.add(unchanged(api("admin: parameter out of range (rMax 99)", 400, "rMax", "got 99",
                admin("PUT", "/admin/policy", "{\"policy\": \"br0\", \"parameters\": {\"rMax\": 99}}", AUTH,
                        "Content-Type: application/json"))));
        c.add(unchanged(api("admin: gamma 0", 400, "gamma", "gamma",
                admin("PUT", "/admin/policy", "{\"policy\": \"brh-survival\", \"parameters\": {\"gamma\": 0}}", AUTH,
                        "Content-Type: application/json"))));
        c.add(unchanged(api("admin: invalid JSON", 400, null, "not valid JSON",
                admin("PUT", "/admin/policy", "{\"policy\":", AUTH, "Content-Type: application/json"))));
        c.add(unchanged(api("admin: Content-Type text/plain", 415, null, "Unsupported Media Type",
                admin("PUT", "/admin/policy", "{\"policy\": \"jsq\"}", AUTH, "Content-Type: text/plain"))));
        c.add(api("admin: DELETE /admin/policy", 405, null, "Method Not Allowed", admin("DELETE", "/admin/policy", null, AUTH)));
        c.add(api("admin: unknown path", 404, null, "no such endpoint", admin("GET", "/admin/nothing", null, AUTH)));

        // configuration files edited under the running runtime
        c.add(config("proxy.cfg `maxBodyBytes = -5`", "org.balanceroute.proxy", "maxBodyBytes", "-5",
                acceptsBodyOf(3000)));
        c.add(config("proxy.cfg `maxBodyBytes = abc`", "org.balanceroute.proxy", "maxBodyBytes", "abc",
                acceptsBodyOf(3000)));
        c.add(config("proxy.cfg `placementTimeoutMillis = 480000`", "org.balanceroute.proxy", "placementTimeoutMillis",
                "480000", acceptsBodyOf(3000)));
        c.add(config("pool-default.cfg `instance.decode.capacity = 0`", "org.balanceroute.pool-default",
                "org.balanceroute.pool~default", "instance.decode.capacity", "0",
                () -> runtime.snapshot() != null && runtime.snapshot().path("capacity").asInt() == 64));
        c.add(config("pool-default.cfg `instance.decode.capacity = eight`", "org.balanceroute.pool-default",
                "org.balanceroute.pool~default", "instance.decode.capacity", "eight",
                () -> runtime.snapshot() != null && runtime.snapshot().path("capacity").asInt() == 64));
        c.add(config("pool-default.cfg `instance.decode.workers = notaurl`", "org.balanceroute.pool-default",
                "org.balanceroute.pool~default", "instance.decode.workers", "notaurl",
                () -> runtime.snapshot() != null && runtime.snapshot().path("workers").size() == 2));
        c.add(config("connector.cfg `prefillRetries = many`", "org.balanceroute.connector.vllm", "prefillRetries",
                "many", () -> true));
        c.add(config("policy.balance.cfg `rMax = 99`", "org.balanceroute.policy.balance", "rMax", "99",
                () -> runtime.activePolicy().equals("br0") && parameter("rMax") == 8));
        c.add(config("policy.balance.cfg `gamma = NaN`", "org.balanceroute.policy.balance", "gamma", "NaN",
                () -> parameter("rMax") == 8));
        c.add(config("router.cfg `policy = nope` (falls back to fallbackPolicy)", "org.balanceroute.router", "policy", "nope",
                () -> runtime.activePolicy().equals("jsq")));

        // trace files, for simulate and replay
        String header = "arrival_s,input_tokens,output_tokens\n";
        Path empty = trace("empty.csv", "");
        Path shortLine = trace("short.csv", header + "0.0,100,10\n0.5,100\n");
        Path column = trace("column.csv", header + "0.0,abc,10\n");
        Path nan = trace("nan.csv", header + "NaN,100,10\n");
        Path negative = trace("negative.csv", header + "0.0,-100,10\n");
        Path cut = trace("cut.jsonl", "{\"timestamp\": 0, \"input_length\": 100, \"output_length\": 10, \"hash_ids\": [1]}\n"
                + "{\"timestamp\": 10, \"input_len");
        Path good = trace("good.csv", header + "0.0,100,3\n");
        for (String tool : new String[] {"simulate", "replay"}) {
            c.add(cli(tool + ": empty trace file", 1, "empty.csv: empty file", tool, empty));
            c.add(cli(tool + ": truncated line (2 of 3 columns)", 1, "short.csv:3: expected 3 columns", tool, shortLine));
            c.add(cli(tool + ": wrong column (text for a number)", 1, "column.csv:2: field 'input_tokens'", tool, column));
            c.add(cli(tool + ": NaN arrival time", 1, "nan.csv:2: field 'arrival_s'", tool, nan));
            c.add(cli(tool + ": negative token count", 1, "negative.csv:2: field 'input_tokens'", tool, negative));
            c.add(cli(tool + ": JSON line cut short", 1, "cut.jsonl:2:", tool, cut));
            c.add(cli(tool + ": no such file", 1, "missing.csv: no such file", tool, traces.resolve("missing.csv")));
        }
        // command-line flags
        c.add(flag("simulate `--limit abc`", 2, "--limit must be an integer, got 'abc'", "simulate", "--trace", good.toString(),
                "--limit", "abc"));
        c.add(flag("simulate `--rate-scale -1`", 2, "--rate-scale must be finite and > 0", "simulate", "--trace",
                good.toString(), "--rate-scale", "-1"));
        c.add(flag("simulate `--policies nope`", 2, "unknown policy 'nope'", "simulate", "--trace", good.toString(),
                "--policies", "nope"));
        c.add(flag("simulate without `--trace`", 2, "--trace FILE is required", "simulate"));
        c.add(flag("replay `--url notaurl`", 2, "bad URL 'notaurl'", "replay", "--url", "notaurl", "--generate", "1"));
        c.add(flag("replay `--concurrency 0`", 2, "--concurrency must be >= 1", "replay", "--url", runtime.base(),
                "--generate", "1", "--concurrency", "0"));
        c.add(flag("replay: nothing listens at the URL", 1, "connection refused", "replay", "--url", "http://127.0.0.1:1",
                "--generate", "1"));
        c.add(flag("run `--port 70000`", 2, "--port must be a number from 1 to 65535, got '70000'", "run", "--port", "70000"));
        c.add(flag("run `--cluster-members` without `--cluster-port`", 2, "--cluster-members needs --cluster-port", "run",
                "--cluster-members", "a"));
        c.add(flag("run `--bogus`", 2, "unknown option '--bogus'", "run", "--bogus"));
        c.add(flag("sim-cluster `--decode 0`", 2, "--decode must be 1..1024, got 0", "sim-cluster", "--decode", "0"));
        c.add(flag("sim-cluster `--fault` naming rank 99 of 8", 2, "field 'rank' must be an integer in 0..7", "sim-cluster",
                "--fault", "{\"rank\": 99, \"down\": true}"));
        c.add(flag("an unknown command", 2, "unknown command 'bogus'", "bogus"));
        return c;
    }

    // ---------------------------------------------------------------------------------------------
    // the run

    @Test
    public void everyCaseGetsItsAnswerAndTheProxyServesOnWithNoLoadLeft() throws Exception {
        List<Case> all = cases();
        List<String> failures = new ArrayList<>();
        long t0 = System.nanoTime();
        for (Case k : all) {
            String problem;
            try {
                problem = check(k, k.probe.run());
            } catch (Exception | AssertionError e) {
                problem = "threw " + e;
            }
            String after = afterwards();
            if (problem != null || after != null) {
                failures.add(k.name + ": " + (problem != null ? problem : "") + (after != null ? " / after it: " + after : ""));
            }
        }
        System.out.printf("BadInputIT: %d cases in %.1f s, %d failed%n", all.size(), (System.nanoTime() - t0) / 1e9,
                failures.size());
        assertTrue(all.size() + " cases; failed:\n" + String.join("\n", failures) + "\n" + runtime.logTail(),
                failures.isEmpty());
    }

    @Test
    public void theBadInputTableListsEveryCase() throws Exception {
        String table = Files.readString(RuntimeProcess.root().resolve("docs/reliability-and-security.md"));
        List<String> missing = new ArrayList<>();
        StringBuilder rows = new StringBuilder();
        for (Case k : cases()) {
            String row = "| " + k.name + " | " + k.expected + " |";
            rows.append(row).append(' ').append(describe(k)).append(" | yes |\n");
            if (!table.contains(row)) {
                missing.add(row);
            }
        }
        assertTrue("docs/reliability-and-security.md: rows missing or with another expected status:\n"
                + String.join("\n", missing) + "\n\nthe rows as the test has them:\n" + rows, missing.isEmpty());
    }

    /**
     * Security points that a running runtime shows: the default credentials warned about in its
     * log; its HTTP port bound to 127.0.0.1 only; no prompt text and no credentials in its log at
     * INFO (a request with a marker prompt, refused and served, and admin calls with a marker
     * password, refused); error bodies without stack traces are checked on every case above.
     */
    @Test
    public void securityPointsOfARunningRuntime() throws Exception {
        Path log = runtime.home.resolve("runtime.log");
        assertTrue("the SECURITY warning while admin / admin is in force",
                Files.readString(log).contains("SECURITY: the web console and the admin API (/admin/*) accept the default"));
        List<String> addresses = org.balanceroute.testkit.ListenQueue.addresses(runtime.httpPort);
        if (addresses != null) {
            assertTrue("listeners " + addresses, !addresses.isEmpty() && addresses.stream().allMatch(org.balanceroute.testkit.ListenQueue::loopback));
        }
        String prompt = "PROMPT-MARKER-" + Long.toHexString(System.nanoTime());
        String password = "PASSWORD-MARKER-" + Long.toHexString(System.nanoTime());
        assertTrue(post("/v1/completions", body("\"prompt\": \"" + prompt + "\", \"max_tokens\": 2")).run().code == 200);
        assertTrue(post("/v1/completions", body("\"prompt\": \"" + prompt + "\", \"max_tokens\": 0")).run().code == 400);
        assertTrue(post("/v1/chat/completions", body("\"messages\": [{\"role\": \"user\", \"content\": \"" + prompt
                + "\"}], \"max_tokens\": 2")).run().code == 200);
        assertTrue(admin("GET", "/admin/policies", null, basic("admin", password)).run().code == 401);
        assertTrue(admin("PUT", "/admin/policy", "{\"policy\": \"" + prompt + "\"}", basic("admin", password),
                "Content-Type: application/json").run().code == 401);
        String encoded = Base64.getEncoder().encodeToString(("admin:" + password).getBytes(StandardCharsets.UTF_8));
        // The log is written by another process: an admin change logged after the requests above
        // marks the point up to which their lines are in the file.
        long changes = logLines(log, "admin: pool");
        assertTrue(admin("PUT", "/admin/policy", "{\"policy\": \"" + runtime.activePolicy() + "\"}", AUTH,
                "Content-Type: application/json").run().code == 200);
        RuntimeProcess.await("the admin change in the log", Duration.ofSeconds(15), () -> logLines(log, "admin: pool") > changes);
        String text = Files.readString(log);
        assertTrue("prompt text in the log", !text.contains(prompt));
        assertTrue("a password in the log", !text.contains(password) && !text.contains(encoded));
        assertTrue("the configured password in the log", !text.contains("password = admin") && !text.contains("password=admin"));
    }

    /** The "Bad input" table's "expected body" column. */
    static String describe(Case k) {
        if (k.openAi) {
            return "OpenAI error, " + (k.param == null ? "`param` null" : "`param` `" + k.param + "`") + ": \""
                    + k.fragment.replace("|", "\\|") + "\"";
        }
        String f = k.fragment.isEmpty() ? k.extraWhat : "\"" + k.fragment.replace("|", "\\|") + "\"";
        return k.extraWhat != null && !k.fragment.isEmpty() ? f + "; " + k.extraWhat : f;
    }

    private static String check(Case k, Outcome o) {
        if (o.code != k.code) {
            return "expected " + k.expected + ", got " + o.code + ": " + abbreviate(o.text);
        }
        if (!o.text.contains(k.fragment)) {
            return "the answer lacks \"" + k.fragment + "\": " + abbreviate(o.text);
        }
        if (k.openAi) {
            if (o.answer != null && !"application/json".equals(o.answer.header("Content-Type"))) {
                return "Content-Type " + o.answer.header("Content-Type") + ", not application/json";
            }
            try {
                JsonNode e = RuntimeProcess.JSON.readTree(o.text).path("error");
                if (!e.path("message").isTextual() || !e.path("type").isTextual()) {
                    return "not an OpenAI error body: " + abbreviate(o.text);
                }
                String param = e.path("param").isNull() ? null : e.path("param").asText();
                if (!Objects.equals(param, k.param)) {
                    return "param " + param + ", expected " + k.param;
                }
                if (o.text.contains("\tat ") || o.text.contains("Exception")) {
                    return "the body carries a stack trace or exception name: " + abbreviate(o.text);
                }
            } catch (IOException e) {
                return "not JSON: " + abbreviate(o.text);
            }
        }
        if (k.extra != null && !k.extra.test(o)) {
            return "not so: " + k.extraWhat;
        }
        return null;
    }

    /** After a case: a valid request succeeds, and the snapshot is back to no load; null when so. */
    private static String afterwards() throws Exception {
        Outcome o = post("/v1/completions", VALID).run();
        if (o.code != 200 || !o.text.contains("\"completion_tokens\":2")) {
            return "the valid request got " + o.code + ": " + abbreviate(o.text);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            if (runtime.idle()) {
                return null;
            }
            Thread.sleep(20);
        }
        JsonNode s = runtime.snapshot();
        return "load left in the snapshot: " + (s == null ? "(no snapshot)" : s.path("totals") + ", pool " + s.path("poolDepth"));
    }

    // ---------------------------------------------------------------------------------------------
    // case builders

    static Case api(String name, int status, String param, String fragment, Probe probe) {
        return new Case(name.startsWith("admin") ? "admin" : "api", name, status, Integer.toString(status), true, param,
                fragment, probe, null, null);
    }

    static Case ok(String name, Probe probe, String fragment) {
        return new Case("api", name, 200, "200", false, null, fragment, probe, null, null);
    }

    /** The case, and then the active policy and rMax as they were (nothing was written). */
    static Case unchanged(Case k) {
        return new Case(k.group, k.name, k.code, k.expected, k.openAi, k.param, k.fragment, k.probe,
                o -> runtime.activePolicy().equals("br0") && parameter("rMax") == 8, "policy and parameters unchanged");
    }

    static Case cli(String name, int exit, String fragment, String tool, Path trace) {
        return tool.equals("simulate") ? flag(name, exit, fragment, "simulate", "--trace", trace.toString(), "--policies", "jsq")
                : flag(name, exit, fragment, "replay", "--url", runtime.base(), "--trace", trace.toString());
    }

    static Case flag(String name, int exit, String fragment, String... args) {
        return new Case("cli", name, exit, "exit " + exit, false, null, fragment, () -> {
            List<String> command = new ArrayList<>(List.of(RuntimeProcess.root().resolve("balanceroute").toString()));
            command.addAll(List.of(args));
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().put("BALANCEROUTE_NO_BUILD", "1");
            Process p = pb.start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Outcome(-1, "did not end within 60 s", null);
            }
            return new Outcome(p.exitValue(), new String(out, StandardCharsets.UTF_8), null);
        }, null, null);
    }

    interface Condition {
        boolean holds() throws Exception;
    }

    /**
     * A configuration file of the runtime's home with {@code property = value}: an ERROR (or, for
     * a policy that is not there, a WARN) in the log naming the PID and the property, and
     * {@code inForce} holding (the previous configuration stays); then the file as it was.
     */
    static Case config(String name, String pid, String property, String value, Condition inForce) {
        return config(name, pid, pid, property, value, inForce);
    }

    /** @param file the file's name without {@code .cfg} (a factory configuration's differs from its PID) */
    static Case config(String name, String file, String pid, String property, String value, Condition inForce) {
        return new Case("config", name, 1, "logged, previous kept", false, null, "", () -> {
            Path path = runtime.home.resolve("config").resolve(file + ".cfg");
            String original = Files.readString(path);
            Pattern line = Pattern.compile("(?m)^[ \\t]*" + Pattern.quote(property) + "[ \\t]*[=:][ \\t]*(.*?)[ \\t]*$");
            Matcher m = line.matcher(original);
            boolean present = m.find();
            String was = present ? m.group(1) : null;
            String bad = present ? m.replaceFirst(Matcher.quoteReplacement(property + " = " + value))
                    : original + "\n" + property + " = " + value + "\n";
            Path log = runtime.home.resolve("runtime.log");
            long before = logLines(log, pid, property);
            RuntimeProcess.writeWatched(path, bad);
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
                while (logLines(log, pid, property) <= before) {
                    if (System.nanoTime() > deadline) {
                        return new Outcome(0, "no log line naming " + pid + " and " + property + " within 15 s", null);
                    }
                    Thread.sleep(50);
                }
                boolean kept = inForce.holds();
                return new Outcome(kept ? 1 : 0, kept ? "" : "the previous configuration is not in force", null);
            } finally {
                RuntimeProcess.writeWatched(path, original);
                // the file as it was in ConfigAdmin again (FileInstall's next poll) before the next case
                RuntimeProcess.await(pid + " " + property + " back to " + was, Duration.ofSeconds(15),
                        () -> Objects.equals(was, runtime.configValue(pid, property)));
            }
        }, null, "ERROR in the log naming the PID and the property; the previous configuration in force");
    }

    /** Log lines at ERROR or WARN naming both. */
    static long logLines(Path log, String pid, String property) {
        return logLines(log, l -> (l.contains(" ERROR ") || l.contains(" WARN ")) && l.contains(pid) && l.contains(property));
    }

    /** Log lines containing the text. */
    static long logLines(Path log, String text) {
        return logLines(log, l -> l.contains(text));
    }

    static long logLines(Path log, Predicate<String> which) {
        try (var lines = Files.lines(log, StandardCharsets.UTF_8)) {
            return lines.filter(which).count();
        } catch (IOException | java.io.UncheckedIOException e) {
            return 0; // a line being written: count again
        }
    }

    static Condition acceptsBodyOf(int bytes) {
        return () -> {
            String b = prompt("\"max_tokens\": 2, \"pad\": \"" + "x".repeat(bytes) + "\"");
            return post("/v1/completions", b).run().code == 200;
        };
    }

    static int parameter(String name) {
        try {
            return RuntimeProcess.JSON.readTree(runtime.get("/admin/policies").body()).path("parameters").path(name).asInt(-1);
        } catch (IOException e) {
            return -1;
        }
    }

    static Probe post(String path, String json) {
        return post(path, json.getBytes(StandardCharsets.UTF_8));
    }

    static Probe post(String path, byte[] body) {
        return () -> outcome(RawHttp.send(runtime.httpPort, RawHttp.head("POST", path, runtime.httpPort,
                "Content-Type: application/json", "Content-Length: " + body.length), body, TIMEOUT));
    }

    static Probe send(String method, String path, String body, String... headers) {
        return () -> outcome(RawHttp.send(runtime.httpPort, RawHttp.head(method, path, runtime.httpPort,
                withLength(body, headers)), body == null ? null : body.getBytes(StandardCharsets.UTF_8), TIMEOUT));
    }

    /** Exactly these bytes on the socket, for requests no well-formed head can carry. */
    static Probe raw(String request) {
        return () -> outcome(RawHttp.send(runtime.httpPort, request.getBytes(StandardCharsets.ISO_8859_1), null, TIMEOUT));
    }

    static Probe admin(String method, String path, String body, String... headers) {
        return send(method, path, body, headers);
    }

    private static String[] withLength(String body, String[] headers) {
        if (body == null) {
            return headers;
        }
        String[] h = java.util.Arrays.copyOf(headers, headers.length + 1);
        h[headers.length] = "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length;
        return h;
    }

    static Outcome outcome(RawHttp.Answer a) {
        return new Outcome(a.status(), a.body(), a);
    }

    static String basic(String user, String password) {
        return "Authorization: Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    static String body(String fields) {
        return "{\"model\": \"" + MODEL + "\", " + fields + "}";
    }

    static String prompt(String fields) {
        return body("\"prompt\": \"hi\", " + fields);
    }

    static String chat(String fields) {
        return body("\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], " + fields);
    }

    static byte[] bytes(String a, byte[] b, String c) {
        byte[] x = a.getBytes(StandardCharsets.UTF_8);
        byte[] z = c.getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[x.length + b.length + z.length];
        System.arraycopy(x, 0, all, 0, x.length);
        System.arraycopy(b, 0, all, x.length, b.length);
        System.arraycopy(z, 0, all, x.length + b.length, z.length);
        return all;
    }

    static byte[] chunked(byte[] body) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < body.length; i += 65536) {
            int n = Math.min(65536, body.length - i);
            out.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, i, n);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    static Path trace(String name, String text) throws IOException {
        return Files.writeString(traces.resolve(name), text);
    }

    static String abbreviate(String s) {
        String t = s.replace('\n', ' ');
        return t.length() > 300 ? t.substring(0, 300) + "..." : t;
    }

    static Duration seconds(long s) {
        return Duration.ofSeconds(s);
    }
}
