package org.balanceroute.enginesim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A third-party client, the official {@code openai} npm package, streams a chat completion from
 * a decode rank and gets the expected number of tokens. {@code .ci/run} installs the package and
 * sets {@code BALANCEROUTE_OPENAI_NODE_MODULES} (or the system property
 * {@code balanceroute.openai.nodeModules}); without node or the package the test is skipped.
 */
class OpenAiNodeClientTest {

    static Path nodeModules() {
        String dir = System.getProperty("balanceroute.openai.nodeModules");
        if (dir == null || dir.isBlank()) {
            dir = System.getenv("BALANCEROUTE_OPENAI_NODE_MODULES");
        }
        if (dir == null || dir.isBlank()) {
            dir = System.getProperty("user.home") + "/.cache/balanceroute-npm/node_modules";
        }
        return Path.of(dir);
    }

    static boolean nodeAvailable() {
        try {
            Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    void theOfficialOpenAiClientStreamsAChatCompletion(@TempDir Path tmp) throws Exception {
        Path modules = nodeModules();
        assumeTrue(nodeAvailable(), "skipped: 'node' is not on the PATH (.ci/run installs it)");
        assumeTrue(Files.isRegularFile(modules.resolve("openai/package.json")),
                "skipped: the openai npm package is not in " + modules + "; install it with `npm install --no-save"
                        + " --prefix DIR openai` and set BALANCEROUTE_OPENAI_NODE_MODULES=DIR/node_modules"
                        + " (.ci/run does)");
        Path script = tmp.resolve("openai-stream.js");
        try (InputStream in = getClass().getResourceAsStream("openai-stream.js")) {
            Files.write(script, in.readAllBytes());
        }
        int maxTokens = 17;
        try (SimCluster c = SimCluster.start(SimConfig.builder().prefill(0).decode(2).portBase(0)
                .timeFactor(0.01).build())) {
            Process p = new ProcessBuilder("node", script.toString(), modules.toAbsolutePath().toString(),
                    c.decodeUrl(1), String.valueOf(maxTokens)).redirectError(tmp.resolve("stderr.txt").toFile())
                    .start();
            byte[] out = p.getInputStream().readAllBytes();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "node did not finish");
            String stdout = new String(out, StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), "node failed: " + stdout + Files.readString(tmp.resolve("stderr.txt")));
            JsonNode result = SimHttp.JSON.readTree(stdout);
            assertEquals(maxTokens, result.get("contentChunks").asInt(), stdout);
            assertEquals(maxTokens, result.at("/usage/completion_tokens").asInt(), stdout);
            assertEquals("length", result.get("finishReason").asText(), stdout);
            assertEquals("assistant", result.get("role").asText(), stdout);
            assertEquals(maxTokens, result.get("content").asText().split(" ").length - 1, stdout);
        }
    }
}
