package org.balanceroute.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import org.balanceroute.replay.Replayer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.OverwrittenOptionException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Entry point of every command of {@code ./balanceroute} but {@code run} (the runtime): {@code
 * Main COMMAND [options]}. One parser (picocli) for all, {@code --help} generated from the
 * options. Exit status: 0 done, 1 failed, 2 usage error (the message names the option).
 */
@Command(name = "balanceroute", synopsisSubcommandLabel = "COMMAND",
        description = "The commands of ./balanceroute but run (the runtime, started by the script itself).")
public final class Main implements Callable<Integer> {

    private final PrintStream out;

    @Spec
    CommandSpec spec;

    private Main(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        Replayer.configureJdkClient(); // before any HTTP client exists (the demo makes one when built)
        System.exit(run(Arrays.asList(args), System.out, System.err));
    }

    /** Runs {@code COMMAND [options]}; returns the exit status. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        return commandLine(out, err).execute(args.toArray(String[]::new));
    }

    /** No command: the list of commands, exit status 2. */
    @Override
    public Integer call() {
        spec.commandLine().usage(out);
        return 2;
    }

    static CommandLine commandLine(PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(new Main(out));
        for (CliCommand c : List.of(new SimulateCommand(), new SweepCommand(), new TuneCommand(), new TuneTableCommand(), new ReplayCommand(),
                new SimClusterCommand(), new Demo())) {
            c.out = out;
            c.err = err;
            CommandLine sub = new CommandLine(c);
            sub.setOverwrittenOptionsAllowed(!c.onceOnly());
            cl.addSubcommand(sub);
        }
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setExpandAtFiles(false); // "@x" is a value like any other
        cl.setUsageHelpWidth(100);
        cl.setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF));
        cl.setParameterExceptionHandler((e, args) -> {
            if (!(e.getCommandLine().getCommand() instanceof CliCommand c)) {
                err.println("balanceroute: " + (e instanceof UnmatchedArgumentException u
                        ? "unknown command '" + u.getUnmatched().get(0) + "'" : e.getMessage()));
                return 2;
            }
            if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
                e.getCommandLine().usage(out); // help wins over a bad option next to it
                return 0;
            }
            return usageError(c, e.getCommandLine(), message(e, c));
        });
        cl.setExecutionExceptionHandler((e, failed, parsed) -> {
            if (failed.getCommand() instanceof CliCommand c) {
                if (e instanceof UsageException) {
                    return usageError(c, failed, e.getMessage());
                }
                if (e instanceof IllegalArgumentException) {
                    c.err.println("balanceroute " + c.name() + ": " + e.getMessage());
                    return 2;
                }
            }
            e.printStackTrace(err);
            return 1;
        });
        return cl;
    }

    private static int usageError(CliCommand c, CommandLine cl, String message) {
        c.err.println("balanceroute " + c.name() + ": " + message);
        if (c.usageHint() == CliCommand.Hint.TRY_HELP) {
            c.err.println("Try 'balanceroute " + c.name() + " --help'.");
        } else {
            c.err.print(cl.getUsageMessage());
        }
        c.err.flush();
        return 2;
    }

    /** The parser's complaint in the commands' words, naming the option. */
    static String message(ParameterException e, CliCommand c) {
        if (e instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            return "unknown option '" + u.getUnmatched().get(0) + "'";
        }
        if (e instanceof MissingParameterException m && !m.getMissing().isEmpty()) {
            return c.needsValue(name(m.getMissing().get(0)));
        }
        if (e instanceof OverwrittenOptionException o) {
            return name(o.getOverwritten()) + " given twice";
        }
        if (e.getCause() instanceof TypeConversionException t && e.getArgSpec() != null) {
            return name(e.getArgSpec()) + " " + t.getMessage();
        }
        return e.getMessage();
    }

    private static String name(ArgSpec arg) {
        return arg instanceof OptionSpec o ? o.longestName() : arg.paramLabel();
    }
}
