package org.balanceroute.simulator.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/** Entry point behind {@code ./balanceroute simulate}, {@code sweep} and {@code tune}. Exit status: 0 done, 1 failed, 2 usage error. */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(Arrays.asList(args), System.out, System.err));
    }

    static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.isEmpty() || args.get(0).equals("--help") || args.get(0).equals("-h")) {
            out.println(SimulateCommand.USAGE);
            return args.isEmpty() ? 2 : 0;
        }
        String command = args.get(0);
        List<String> rest = args.subList(1, args.size());
        try {
            if (command.equals("simulate")) {
                if (rest.contains("--help") || rest.contains("-h")) {
                    out.println(SimulateCommand.USAGE);
                    return 0;
                }
                return new SimulateCommand(out, err).run(rest);
            }
            if (command.equals("sweep")) {
                if (rest.contains("--help") || rest.contains("-h")) {
                    out.println(SweepCommand.USAGE);
                    return 0;
                }
                return new SweepCommand(out, err).run(rest);
            }
            if (command.equals("tune")) {
                if (rest.contains("--help") || rest.contains("-h")) {
                    out.println(TuneCommand.USAGE);
                    return 0;
                }
                return new TuneCommand(out, err).run(rest);
            }
            throw new UsageException("unknown command '" + command + "'");
        } catch (UsageException e) {
            err.println("balanceroute " + command + ": " + e.getMessage());
            err.println("Try 'balanceroute " + command + " --help'.");
            return 2;
        } catch (IllegalArgumentException e) {
            err.println("balanceroute " + command + ": " + e.getMessage());
            return 2;
        }
    }
}
