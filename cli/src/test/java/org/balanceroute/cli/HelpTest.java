package org.balanceroute.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** Every command's --help: generated from its options, each listed, exit status 0. */
class HelpTest {

    private static final List<String> COMMANDS = List.of("simulate", "sweep", "tune", "tune-table", "replay", "sim-cluster", "demo");

    @Test
    void everyCommandIsThere() {
        assertEquals(COMMANDS, List.copyOf(Main.commandLine(System.out, System.err).getSubcommands().keySet()));
    }

    @Test
    void eachCommandsHelpListsItsOptions() {
        Map<String, CommandLine> commands = Main.commandLine(System.out, System.err).getSubcommands();
        for (String name : COMMANDS) {
            for (String help : List.of("--help", "-h")) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                ByteArrayOutputStream err = new ByteArrayOutputStream();
                int status = Main.run(List.of(name, help), new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
                String text = out.toString(StandardCharsets.UTF_8);
                assertEquals(0, status, name + " " + help + ": " + err);
                assertTrue(text.startsWith("Usage: "), text);
                assertTrue(text.contains(name), text);
                List<OptionSpec> options = commands.get(name).getCommandSpec().options();
                // tune-table runs fixed workloads: it takes only --cases, --traces and --help
                assertTrue(options.size() >= (name.equals("tune-table") ? 3 : 6), name + ": " + options.size() + " options");
                for (OptionSpec o : options) {
                    if (!o.hidden()) {
                        for (String n : o.names()) {
                            assertTrue(text.contains(n), name + " --help lacks " + n + ":\n" + text);
                        }
                    }
                }
            }
        }
    }

    @Test
    void helpWinsOverABadOptionNextToIt() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, Main.run(List.of("simulate", "--frobnicate", "--help"),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream())));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--trace"));
    }

    @Test
    void aBadValueNamesTheOptionWithExitStatus2() {
        String[][] cases = {
            {"simulate", "--workers", "many", "balanceroute simulate: --workers must be an integer, got 'many'\n"
                + "Try 'balanceroute simulate --help'.\n"},
            {"simulate", "--seed", "", "balanceroute simulate: --seed must be an integer, got ''\n"},
            {"simulate", "--trace", "balanceroute simulate: --trace needs a value\n"},
            {"simulate", "--trace", "a", "--trace", "b", "balanceroute simulate: --trace given twice\n"},
            {"sweep", "--limit", "x", "balanceroute sweep: --limit must be an integer, got 'x'\n"},
            {"tune", "--load", "1", "--bogus", "balanceroute tune: unknown option '--bogus'\n"},
            {"tune", "--trace", "t", "--parts", "0", "balanceroute tune: --parts must be in [1, 60], got 0\n"},
            {"tune", "--trace", "t", "--quorum", "0.5", "balanceroute tune: --quorum must be in (0.5, 1], got 0.5\n"},
            {"tune", "--trace", "t", "--margin", "2", "balanceroute tune: --margin must be in [0, 1], got 2.0\n"},
            {"tune", "--trace", "t", "--replays", "0", "balanceroute tune: --replays must be in [1, 50], got 0\n"},
            {"tune", "--trace", "t", "--generate", "10", "balanceroute tune: --trace and --generate both give the workload:"
                    + " give one of them\n"},
            {"tune", "--generate", "0", "balanceroute tune: --trace FILE (or --generate N, N > 0) is required\n"},
            {"tune", "--trace", "t", "--eval-replays", "51", "balanceroute tune: --eval-replays must be in [1, 50], got 51\n"},
            {"sim-cluster", "--capacity", "balanceroute sim-cluster: option --capacity needs a value\n"
                + "Try 'balanceroute sim-cluster --help'.\n"},
            {"sim-cluster", "--step-a", "fast", "balanceroute sim-cluster: --step-a must be a number, got 'fast'\n"},
            {"replay", "--concurrency", "0", "--url", "http://x", "--generate", "1",
                "balanceroute replay: --concurrency must be >= 1, got 0\nUsage: ./balanceroute replay"},
            {"replay", "--seed", "x", "balanceroute replay: --seed must be an integer, got 'x'\n"},
            {"demo", "--requests", "many", "balanceroute demo: --requests must be an integer, got 'many'\n"
                + "Usage: ./balanceroute demo"},
            {"demo", "--replicas", "1", "balanceroute demo: --replicas must be 2..8, got 1\n"},
            {"demo", "--tune", "--replicas", "2", "balanceroute demo: --tune runs on one replica, not with --replicas\n"},
            {"demo", "--tune", "--tune-parts", "61", "balanceroute demo: --tune-parts must be in [1, 60], got 61\n"},
            {"demo", "--instances", "1", "balanceroute demo: --instances must be 2..4, got 1\n"},
            {"demo", "--instances", "5", "balanceroute demo: --instances must be 2..4, got 5\n"},
            {"demo", "--instances", "two", "balanceroute demo: --instances must be an integer, got 'two'\n"},
            {"demo", "--instances", "2", "--replicas", "2", "balanceroute demo: --instances runs on one replica, not with"
                + " --replicas\n"},
            {"demo", "--sim-port-base", "19100", "balanceroute demo: --sim-port-base needs --instances (the runtime's own"
                + " pool file names the default ports)\n"},
            {"demo", "--instances", "2", "--sim-port-base", "65400", "balanceroute demo: --sim-port-base must leave room"
                + " for every instance's ports below 65536, got 65400\n"},
            {"demo", "--instances", "2", "--tune", "balanceroute demo: --instances runs on one replica, not with --tune\n"},
        };
        for (String[] c : cases) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            List<String> args = List.of(c).subList(0, c.length - 1);
            assertEquals(2, Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8)), args.toString());
            String text = err.toString(StandardCharsets.UTF_8);
            assertTrue(text.startsWith(c[c.length - 1]), args + ":\n" + text);
            assertEquals("", out.toString(StandardCharsets.UTF_8), args.toString());
        }
    }
}
