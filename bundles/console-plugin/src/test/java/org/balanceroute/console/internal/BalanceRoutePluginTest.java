package org.balanceroute.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.balanceroute.admin.PolicyAdmin.ParameterDescription;
import org.balanceroute.admin.PolicyAdmin.PolicyDescription;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.router.ReplicasStatus;
import org.balanceroute.router.ReplicaShare;
import org.balanceroute.router.RouterService;
import org.junit.jupiter.api.Test;

/** The servlet end to end without a framework: the page, state.json, and POSTs with and without the CSRF token. */
class BalanceRoutePluginTest {

    static final List<PolicyDescription> POLICIES = List.of(
            new PolicyDescription("br0", "org.balanceroute.policy.balance",
                    List.of(new ParameterDescription("rMax", "R_max", "Stage 2 candidates", "integer", 8, "1", "16", Map.of())),
                    Map.of("rMax", 8)),
            new PolicyDescription("brh-survival", "org.balanceroute.policy.balance",
                    List.of(new ParameterDescription("rMax", "R_max", "Stage 2 candidates", "integer", 8, "1", "16", Map.of())),
                    Map.of("rMax", 8)),
            // a hot-deployed policy: its tunable comes from its own metatype, through PolicyAdmin
            new PolicyDescription("least-running", "org.balanceroute.policy.example",
                    List.of(new ParameterDescription("tieBreak", "Tie break", "lowest or highest index", "string", "lowest",
                            null, null, Map.of("lowest index", "lowest", "highest index", "highest"))),
                    Map.of("tieBreak", "lowest")));

    private final AtomicLong now = new AtomicLong(1_800_000_000_000L);
    private final PoolSnapshot[] snapshot = {LoadHistoryTest.snapshot(1, 100, 400)};
    private final ReplicasStatus[] cluster = {new ReplicasStatus(ReplicasStatus.LOCAL, "local", "local",
            List.of(new ReplicaShare("local", "local", true, 0, new long[] {100, 400}, new int[] {1, 2}, new int[] {0, 0})),
            0, ReplicasStatus.Staleness.NONE)};
    private final Map<String, Map<String, Object>> configs = new HashMap<>();
    private final Fakes.RecordingPolicyAdmin admin = new Fakes.RecordingPolicyAdmin(POLICIES);
    private final CsrfTokens csrf = new CsrfTokens("0123456789abcdef0123456789abcdef".getBytes(), () -> now.get() / 1000);
    private final List<String> drains = new ArrayList<>();
    private final PoolSnapshot[] chat = {Fakes.snapshot(new int[] {1}, new long[] {900}, new int[] {4})};
    /** The pools routed beside the primary {@code default}: a test adds and removes some. */
    private final Map<String, RouterService> others = new HashMap<>(Map.of("chat", Fakes.poolRouter("chat", () -> chat[0], "jsq")));
    private final BalanceRoutePlugin plugin = new BalanceRoutePlugin(Fakes.withPools(
            Fakes.router(snapshot, cluster, "br0", List.of("br0", "brh-survival", "jsq", "least-running"), drains),
            others),
            Fakes.configs(configs), k -> null, new HistorySettings(600, 1000), csrf, now::get, false);

    {
        plugin.policyAdmin(admin);
    }

    private Fakes.Response get(String pathInfo, Map<String, String> params) throws Exception {
        Fakes.Response r = new Fakes.Response();
        plugin.service(Fakes.request("GET", pathInfo, Map.of(), params, null, "admin"), r.servlet());
        return r;
    }

    private Fakes.Response post(String pathInfo, Map<String, String> headers, String body) throws Exception {
        Fakes.Response r = new Fakes.Response();
        plugin.service(Fakes.request("POST", pathInfo, headers, Map.of(), body, "admin"), r.servlet());
        return r;
    }

    private static JsonNode json(Fakes.Response r) throws Exception {
        return StateJson.JSON.readTree(r.body());
    }

    @Test
    void thePageCarriesTheRootAndAToken() throws Exception {
        Fakes.Response r = get("/balanceroute", Map.of());
        assertEquals(200, r.status);
        assertTrue(r.body().contains("data-root=\"/system/console/balanceroute\""), r.body());
        String token = r.body().replaceAll("(?s).*data-csrf=\"([^\"]+)\".*", "$1");
        assertEquals(CsrfTokens.Verdict.VALID, csrf.check(token, "admin"));
        assertTrue(r.body().contains("/system/console/balanceroute/res/uplot/uPlot.iife.min.js"));
        assertEquals(404, get("/balanceroute/nothing.json", Map.of()).status);
    }

    @Test
    void anInvalidHistoryConfigurationKeepsTheHistoryInForce() throws Exception {
        plugin.sample();
        plugin.modified(Map.of("historySamples", 5));
        plugin.modified(Map.of("sampleIntervalMillis", "often"));
        JsonNode kept = json(get("/balanceroute/state.json", Map.of())).path("history");
        assertEquals(600, kept.path("capacity").asInt());
        assertEquals(1000, kept.path("intervalMillis").asLong());
        assertEquals(1, kept.path("samples").size(), "the samples taken stay");

        plugin.modified(Map.of("historySamples", 20, "sampleIntervalMillis", 500));
        JsonNode changed = json(get("/balanceroute/state.json", Map.of())).path("history");
        assertEquals(20, changed.path("capacity").asInt());
        assertEquals(500, changed.path("intervalMillis").asLong());
    }

    @Test
    void anInvalidFirstHistoryConfigurationNamesPidAndProperty() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> HistorySettings.read(ConfigProperties.of(ConsolePluginConfig.PID, Map.of("historySamples", 5))));
        assertEquals("org.balanceroute.console: historySamples must be an integer in [10, 86400], got 5", e.getMessage());
    }

    @Test
    void stateJsonGivesOnlyTheSamplesAfterTheViewersLast() throws Exception {
        plugin.sample();
        now.addAndGet(1000);
        snapshot[0] = LoadHistoryTest.snapshot(2, 300, 350);
        plugin.sample();
        JsonNode all = json(get("/balanceroute/state.json", Map.of()));
        assertEquals(2, all.path("history").path("samples").size());
        assertEquals(2, all.path("history").path("seq").asLong());
        assertEquals(600, all.path("history").path("capacity").asInt());
        JsonNode after1 = json(get("/balanceroute/state.json", Map.of("since", "1")));
        assertEquals(1, after1.path("history").path("samples").size());
        assertEquals("[300,350]", after1.path("history").path("samples").get(0).path("loads").toString());
        assertEquals(50, after1.path("latest").path("imbalance").asLong());
        assertEquals(2, after1.path("latest").path("workers").size());
        assertEquals(0, json(get("/balanceroute/state.json", Map.of("since", "2"))).path("history").path("samples").size());
        assertEquals(2, json(get("/balanceroute/state.json", Map.of("since", "junk"))).path("history").path("samples").size());
        assertEquals(CsrfTokens.Verdict.VALID, csrf.check(all.path("csrfToken").asText(), "admin"));
    }

    @Test
    void stateJsonCarriesTheSchemaForTheForm() throws Exception {
        JsonNode p = json(get("/balanceroute/state.json", Map.of())).path("policies");
        assertTrue(p.path("manageable").asBoolean());
        assertEquals("br0", p.path("active").asText());
        assertEquals(3, p.path("list").size());
        JsonNode example = p.path("list").get(2);
        assertEquals("least-running", example.path("name").asText());
        assertEquals("tieBreak", example.path("parameters").get(0).path("id").asText());
        assertEquals(2, example.path("parameters").get(0).path("options").size());
        assertEquals("lowest", example.path("values").path("tieBreak").asText());
    }

    @Test
    void withoutPolicyAdminThePoliciesAreShownNotSwitched() throws Exception {
        plugin.policyAdmin(null);
        JsonNode p = json(get("/balanceroute/state.json", Map.of())).path("policies");
        assertFalse(p.path("manageable").asBoolean());
        assertEquals(4, p.path("list").size());
        assertTrue(p.path("message").asText().contains("PolicyAdmin"));
        String token = csrf.issue("admin");
        Fakes.Response r = post("/balanceroute/policy", Map.of(CsrfTokens.HEADER, token), "{\"policy\": \"jsq\"}");
        assertEquals(503, r.status);
    }

    @Test
    void theDefaultCredentialsAreReported() throws Exception {
        assertTrue(json(get("/balanceroute/state.json", Map.of())).path("credentials").path("defaultInForce").asBoolean());
        configs.put("org.apache.felix.webconsole.internal.servlet.OsgiManager",
                Map.of("username", "admin", "password", "{sha-256}jGl25bVBBBW96Qi9Te4V37Fnqchz/Eu4qB9vKrRIqRg="));
        assertTrue(json(get("/balanceroute/state.json", Map.of())).path("credentials").path("defaultInForce").asBoolean());
        configs.put("org.apache.felix.webconsole.internal.servlet.OsgiManager", Map.of("username", "ops", "password", "x"));
        JsonNode c = json(get("/balanceroute/state.json", Map.of())).path("credentials");
        assertFalse(c.path("defaultInForce").asBoolean());
        assertTrue(c.path("problem").isNull());
        configs.put("org.apache.felix.webconsole.internal.servlet.OsgiManager", Map.of("username", "ops", "password", ""));
        assertTrue(json(get("/balanceroute/state.json", Map.of())).path("credentials").path("problem").asText()
                .contains("non-empty"));
    }

    @Test
    void aPostWithoutAValidTokenIsRefusedAndChangesNothing() throws Exception {
        String body = "{\"policy\": \"brh-survival\"}";
        for (Map<String, String> headers : List.of(Map.<String, String>of(),
                Map.of(CsrfTokens.HEADER, ""),
                Map.of(CsrfTokens.HEADER, "v1.1.forged"),
                Map.of(CsrfTokens.HEADER, csrf.issue("someone-else")))) {
            Fakes.Response r = post("/balanceroute/policy", headers, body);
            assertEquals(403, r.status, headers.toString());
            JsonNode j = json(r);
            assertEquals("refused", j.path("outcome").asText());
            assertTrue(j.path("message").asText().startsWith("CSRF check failed"), j.toString());
        }
        assertEquals(List.of(), admin.changes);
    }

    @Test
    void aCrossOriginPostIsRefusedEvenWithAToken() throws Exception {
        String token = csrf.issue("admin");
        Fakes.Response r = post("/balanceroute/policy",
                Map.of(CsrfTokens.HEADER, token, "Origin", "http://evil.example", "Host", "127.0.0.1:8000"),
                "{\"policy\": \"jsq\"}");
        assertEquals(403, r.status);
        assertEquals(403, post("/balanceroute/policy", Map.of(CsrfTokens.HEADER, token, "Origin", "null",
                "Host", "127.0.0.1:8000"), "{\"policy\": \"jsq\"}").status);
        assertEquals(List.of(), admin.changes);
        assertEquals(200, post("/balanceroute/policy", Map.of(CsrfTokens.HEADER, token, "Origin", "http://127.0.0.1:8000",
                "Host", "127.0.0.1:8000"), "{\"policy\": \"jsq\"}").status);
    }

    @Test
    void aPostWithTheTokenChangesThroughPolicyAdmin() throws Exception {
        String token = csrf.issue("admin");
        Fakes.Response r = post("/balanceroute/policy", Map.of(CsrfTokens.HEADER, token),
                "{\"policy\": \"brh-survival\", \"parameters\": {\"rMax\": \"12\"}}");
        assertEquals(200, r.status, r.body());
        JsonNode j = json(r);
        assertEquals("applied", j.path("outcome").asText());
        assertEquals("brh-survival", j.path("active").asText());
        assertEquals(List.of("default brh-survival {rMax=12}"), admin.changes);
    }

    @Test
    void aPoolsPolicyIsChangedForThatPoolAndAnUnknownPoolIsA404() throws Exception {
        admin.activeByPool.put("chat", "jsq");
        String token = csrf.issue("admin");
        Fakes.Response r = post("/balanceroute/policy", Map.of(CsrfTokens.HEADER, token),
                "{\"pool\": \"chat\", \"policy\": \"brh-survival\"}");
        assertEquals(200, r.status, r.body());
        assertEquals("chat", json(r).path("pool").asText());
        assertEquals(List.of("chat brh-survival {}"), admin.changes);
        assertEquals("br0", admin.activeByPool.get("default"));
        r = post("/balanceroute/policy", Map.of(CsrfTokens.HEADER, token), "{\"pool\": \"nope\", \"policy\": \"jsq\"}");
        assertEquals(404, r.status, r.body());
        assertEquals("pool", json(r).path("field").asText());
        assertEquals("no pool 'nope' (GET /admin/pools lists them)", json(r).path("message").asText());
    }

    @Test
    void stateJsonListsEveryPoolWithItsOwnFiguresAndPolicy() throws Exception {
        snapshot[0] = Fakes.snapshot(new int[] {2, 2}, new long[] {100, 400, 50, 60}, new int[] {1, 2, 1, 1});
        plugin.fleetService(() -> Fakes.fleet(DrainRequestTest.FLEET.pool("default"),
                Fakes.pool("chat", new String[] {"x"}, new int[] {1}, 20)));
        plugin.sample();
        JsonNode fleet = json(get("/balanceroute/state.json", Map.of())).path("fleet");
        assertEquals("default", fleet.path("primaryPool").asText());
        JsonNode chat = fleet.path("pools").get(0);
        assertEquals("chat", chat.path("name").asText());
        assertEquals("jsq", chat.path("activePolicy").asText());
        assertEquals(900, chat.path("instances").get(0).path("workers").get(0).path("load").asLong());
        JsonNode primary = fleet.path("pools").get(1);
        assertEquals("br0", primary.path("activePolicy").asText());
        assertTrue(primary.path("primary").asBoolean());
        assertEquals(400, primary.path("instances").get(0).path("workers").get(1).path("load").asLong());
    }

    @Test
    void everyPoolIsSampledIntoItsOwnHistoryReadAfterItsOwnSince() throws Exception {
        plugin.sample();
        chat[0] = Fakes.snapshot(new int[] {1}, new long[] {950}, new int[] {5});
        plugin.sample();
        JsonNode state = json(get("/balanceroute/state.json", Map.of()));
        assertEquals(2, state.path("history").path("samples").size(), "the primary pool's, as before pools");
        assertEquals("[100,400]", state.path("history").path("samples").get(0).path("loads").toString());
        assertEquals(List.of("chat"), fieldNames(state.path("histories")), "the primary pool's is not sent twice");
        JsonNode chatHistory = state.path("histories").path("chat");
        assertEquals(2, chatHistory.path("seq").asLong());
        assertEquals(600, chatHistory.path("capacity").asInt());
        assertEquals(1000, chatHistory.path("intervalMillis").asLong());
        assertEquals("[900]", chatHistory.path("samples").get(0).path("loads").toString());
        assertEquals("[950]", chatHistory.path("samples").get(1).path("loads").toString());
        assertEquals("[0]", chatHistory.path("samples").get(1).path("groups").toString());
        assertEquals("[0]", chatHistory.path("samples").get(1).path("instanceImbalance").toString());

        // since.POOL per pool; since.default (the primary's name) before the plain since
        JsonNode after = json(get("/balanceroute/state.json", Map.of("since.chat", "1", "since.default", "2", "since", "0")));
        assertEquals(1, after.path("histories").path("chat").path("samples").size());
        assertEquals("[950]", after.path("histories").path("chat").path("samples").get(0).path("loads").toString());
        assertEquals(0, after.path("history").path("samples").size());
        assertEquals(2, after.path("history").path("seq").asLong());
    }

    @Test
    void aPoolNoLongerRoutedDropsItsHistoryAndAFailingOneLeavesTheOthersSampled() throws Exception {
        plugin.sample();
        others.put("code", Fakes.poolRouter("code", () -> {
            throw new IllegalStateException("no layout yet");
        }, "br0"));
        plugin.sample();
        JsonNode state = json(get("/balanceroute/state.json", Map.of()));
        assertEquals(List.of("chat"), fieldNames(state.path("histories")), "code has no sample yet");
        assertEquals(2, state.path("histories").path("chat").path("samples").size());
        assertEquals(2, state.path("history").path("samples").size());

        others.remove("chat");
        plugin.sample();
        state = json(get("/balanceroute/state.json", Map.of("since.chat", "1")));
        assertEquals(List.of(), fieldNames(state.path("histories")));
        assertEquals(3, state.path("history").path("samples").size());

        others.put("chat", Fakes.poolRouter("chat", () -> chat[0], "jsq"));
        plugin.sample();
        JsonNode back = json(get("/balanceroute/state.json", Map.of("since.chat", "2"))).path("histories").path("chat");
        assertEquals(1, back.path("seq").asLong(), "a pool routed again starts a new history (the page sees seq fall)");
        assertEquals(0, back.path("samples").size());
    }

    private static List<String> fieldNames(JsonNode o) {
        List<String> names = new ArrayList<>();
        o.fieldNames().forEachRemaining(names::add);
        return names;
    }

    @Test
    void aRefusalNamesTheFieldAndIsA400() throws Exception {
        String token = csrf.issue("admin");
        Fakes.Response r = post("/balanceroute/policy", Map.of(CsrfTokens.HEADER, token),
                "{\"policy\": \"br0\", \"parameters\": {\"rMax\": 99}}");
        assertEquals(400, r.status);
        JsonNode j = json(r);
        assertEquals("refused", j.path("outcome").asText());
        assertEquals("rMax", j.path("field").asText());
        assertTrue(j.path("message").asText().contains("[1, 16]"));
        assertEquals("br0", admin.activeByPool.get("default"));

        Fakes.Response bad = post("/balanceroute/policy", Map.of(CsrfTokens.HEADER, token), "{not json");
        assertEquals(400, bad.status);
        assertTrue(json(bad).path("message").asText().startsWith("the body is not JSON"));
        assertEquals(404, post("/balanceroute/other", Map.of(CsrfTokens.HEADER, token), "{}").status);
    }

    /** The router with two instances a (workers 0, 1) and b (2, 3), and the fleet service's topology of it. */
    private void twoInstances() {
        snapshot[0] = Fakes.snapshot(new int[] {2, 2}, new long[] {100, 400, 50, 60}, new int[] {1, 2, 1, 1});
        plugin.fleetService(() -> DrainRequestTest.FLEET);
    }

    @Test
    void stateJsonCarriesTheFleetAndEachInstancesHistory() throws Exception {
        twoInstances();
        plugin.sample();
        JsonNode state = json(get("/balanceroute/state.json", Map.of()));
        JsonNode fleet = state.path("fleet");
        assertEquals("default", fleet.path("primaryPool").asText());
        assertEquals(2, fleet.path("pools").size());
        JsonNode a = fleet.path("pools").get(0).path("instances").get(0);
        assertEquals("a", a.path("name").asText());
        assertEquals(300, a.path("imbalance").asLong());
        assertEquals("serving", a.path("workers").get(1).path("state").asText());
        assertEquals("http://w1:8000", a.path("workers").get(1).path("endpoint").asText());
        JsonNode sample = state.path("history").path("samples").get(0);
        assertEquals("[0,0,1,1]", sample.path("groups").toString());
        assertEquals("[300,10]", sample.path("instanceImbalance").toString());
        assertEquals(350, sample.path("imbalance").asLong());
        JsonNode w2 = state.path("latest").path("workers").get(2);
        assertEquals(1, w2.path("instance").asInt());
        assertEquals("serving", w2.path("state").asText());
        assertFalse(w2.path("draining").asBoolean());
    }

    @Test
    void aDrainAndAnUndrainOfAWorkerReachTheRouter() throws Exception {
        twoInstances();
        String token = csrf.issue("admin");
        Fakes.Response r = post("/balanceroute/drain", Map.of(CsrfTokens.HEADER, token, "Content-Type", "application/json"),
                "{\"pool\": \"default\", \"worker\": 1}");
        assertEquals(200, r.status, r.body());
        JsonNode j = json(r);
        assertEquals("applied", j.path("outcome").asText());
        assertEquals("drain", j.path("action").asText());
        assertEquals("draining", j.path("workers").get(0).path("state").asText());
        assertEquals("http://w1:8000", j.path("workers").get(0).path("endpoint").asText());
        assertTrue(j.path("message").asText().contains("worker 1"), j.toString());
        assertEquals(List.of("1:true"), drains);
        plugin.sample();
        JsonNode w1 = json(get("/balanceroute/state.json", Map.of())).path("fleet").path("pools").get(0)
                .path("instances").get(0).path("workers").get(1);
        assertEquals("draining", w1.path("state").asText());

        Fakes.Response u = post("/balanceroute/undrain", Map.of(CsrfTokens.HEADER, token, "Content-Type", "application/json"),
                "{\"pool\": \"default\", \"worker\": \"http://w1:8000\"}");
        assertEquals(200, u.status, u.body());
        assertEquals("serving", json(u).path("workers").get(0).path("state").asText());
        assertEquals(List.of("1:true", "1:false"), drains);
    }

    @Test
    void aWholeInstanceFromAForm() throws Exception {
        twoInstances();
        Fakes.Response r = new Fakes.Response();
        plugin.service(Fakes.request("POST", "/balanceroute/drain", Map.of(CsrfTokens.HEADER, csrf.issue("admin"),
                "Content-Type", "application/x-www-form-urlencoded"), Map.of("pool", "default", "instance", "b"),
                null, "admin"), r.servlet());
        assertEquals(200, r.status, r.body());
        assertEquals("b", json(r).path("instance").asText());
        assertEquals(List.of("2:true", "3:true"), drains);
    }

    @Test
    void aDrainWithoutTheTokenOrOfAnotherPoolChangesNothing() throws Exception {
        twoInstances();
        String body = "{\"pool\": \"default\", \"worker\": 1}";
        assertEquals(403, post("/balanceroute/drain", Map.of("Content-Type", "application/json"), body).status);
        assertEquals(403, post("/balanceroute/undrain", Map.of(CsrfTokens.HEADER, "v1.1.forged"), body).status);
        String token = csrf.issue("admin");
        Fakes.Response other = post("/balanceroute/drain", Map.of(CsrfTokens.HEADER, token, "Content-Type",
                "application/json"), "{\"pool\": \"other\", \"worker\": 0}");
        assertEquals(404, other.status);
        assertEquals("refused", json(other).path("outcome").asText());
        assertEquals("pool", json(other).path("field").asText());
        Fakes.Response missing = post("/balanceroute/drain", Map.of(CsrfTokens.HEADER, token, "Content-Type",
                "application/json"), "{\"pool\": \"default\", \"worker\": 7}");
        assertEquals(404, missing.status);
        assertEquals(400, post("/balanceroute/drain", Map.of(CsrfTokens.HEADER, token, "Content-Type",
                "application/json"), "{nope").status);
        assertEquals(List.of(), drains);
    }

    @Test
    void sameOrigin() {
        assertTrue(BalanceRoutePlugin.sameOrigin("http://127.0.0.1:8000", "127.0.0.1:8000"));
        assertTrue(BalanceRoutePlugin.sameOrigin("http://localhost", "localhost:80"));
        assertTrue(BalanceRoutePlugin.sameOrigin("http://localhost:80", "localhost"));
        assertFalse(BalanceRoutePlugin.sameOrigin("http://127.0.0.1:8001", "127.0.0.1:8000"));
        assertFalse(BalanceRoutePlugin.sameOrigin("http://evil.example", "127.0.0.1:8000"));
        assertFalse(BalanceRoutePlugin.sameOrigin("http://127.0.0.1:8000", null));
        assertFalse(BalanceRoutePlugin.sameOrigin("::not a uri", "127.0.0.1:8000"));
    }
}
