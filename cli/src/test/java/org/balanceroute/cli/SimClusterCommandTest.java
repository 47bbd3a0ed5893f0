package org.balanceroute.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.balanceroute.enginesim.SimCluster;
import org.balanceroute.enginesim.SimConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

class SimClusterCommandTest {

    /** The cluster the options give, as {@code ./balanceroute sim-cluster} would start it. */
    private static SimConfig parse(List<String> args) throws UsageException {
        // parsed from the top, as Main does: picocli cannot parse a subcommand whose parent never parsed
        CommandLine top = Main.commandLine(System.out, System.err);
        SimClusterCommand command = top.getSubcommands().get("sim-cluster").getCommand();
        List<String> line = new ArrayList<>(List.of("sim-cluster"));
        line.addAll(args);
        try {
            top.parseArgs(line.toArray(String[]::new));
        } catch (ParameterException e) {
            throw new UsageException(Main.message(e, command));
        }
        return command.config();
    }

    @Test
    void defaults() throws Exception {
        SimConfig c = parse(List.of());
        assertEquals(2, c.prefill());
        assertEquals(8, c.decode());
        assertEquals(18100, c.portBase());
        assertEquals(2e-7, c.stepA());
        assertEquals(0.020, c.stepB());
        assertEquals(0, c.stepC());
        assertEquals(1.0, c.timeFactor());
        assertEquals(64, c.capacity());
        assertEquals(1, c.streamInterval());
        assertEquals(480, c.handleTtlSeconds());
        assertTrue(c.allRanksEndpoint());
    }

    @Test
    void options() throws Exception {
        SimConfig c = parse(List.of("--prefill", "3", "--decode=4", "--port-base", "20000",
                "--step-a", "1e-6", "--step-b", "0.01", "--step-c", "0.001", "--time-factor", "0.1", "--capacity",
                "16", "--stream-interval", "3", "--seed", "7", "--no-all-ranks", "--model", "m",
                "--fault", "{\"rank\": 1, \"down\": true}"));
        assertEquals(List.of("{\"rank\": 1, \"down\": true}"), c.faults());
        assertEquals(3, c.prefill());
        assertEquals(4, c.decode());
        assertEquals(20000, c.portBase());
        assertEquals(1e-6, c.stepA());
        assertEquals(0.1, c.timeFactor());
        assertEquals(16, c.capacity());
        assertEquals(3, c.streamInterval());
        assertEquals(7, c.seed());
        assertFalse(c.allRanksEndpoint());
        assertEquals("m", c.model());
    }

    @Test
    void handlesFromAPeerRepeatableAndNoneByDefault() throws Exception {
        assertEquals(List.of(), parse(List.of()).handlePeers());
        assertEquals(List.of("http://127.0.0.1:18199", "http://127.0.0.1:18399"), parse(List.of("--prefill", "0",
                "--handles-from", "http://127.0.0.1:18199", "--handles-from=http://127.0.0.1:18399")).handlePeers());
        assertMessage("--handles-from must be an http:// base URL", "--handles-from", "127.0.0.1:18199");
        assertMessage("--handles-from", "--handles-from");
    }

    @Test
    void badOptionsNameTheOption() {
        assertMessage("--decode", "--decode", "0");
        assertMessage("--time-factor", "--time-factor", "-1");
        assertMessage("--step-a", "--step-a", "fast");
        assertMessage("--capacity", "--capacity");
        assertMessage("unknown option '--bogus'", "--bogus", "1");
        assertMessage("--port-base", "--port-base", "65500", "--decode", "8");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SimCluster.start(
                parse(List.of("--port-base", "0", "--fault", "{\"rank\": 9, \"down\": true}"))));
        assertTrue(e.getMessage().contains("--fault") && e.getMessage().contains("'rank'"), e.getMessage());
        assertTrue(Main.commandLine(System.out, System.err).parseArgs("sim-cluster", "--help").subcommand()
                .isUsageHelpRequested());
    }

    private static void assertMessage(String expected, String... args) {
        UsageException e = assertThrows(UsageException.class, () -> parse(List.of(args)));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
