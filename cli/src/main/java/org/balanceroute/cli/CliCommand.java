package org.balanceroute.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * One command of {@code ./balanceroute}: its options are picocli fields, {@link #run} does the
 * work. Exit status: what run returns (0 done, 1 failed), 2 for a usage error, which is printed
 * as {@code balanceroute NAME: MESSAGE} followed by {@link #usageHint}.
 */
abstract class CliCommand implements Callable<Integer> {

    /** What follows a usage error's message. */
    enum Hint {
        /** {@code Try 'balanceroute NAME --help'.} */
        TRY_HELP,
        /** the whole usage */
        USAGE
    }

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit")
    boolean help;

    PrintStream out = System.out;
    PrintStream err = System.err;

    /** Runs the command with the parsed options. */
    abstract int run() throws Exception;

    @Override
    public final Integer call() throws Exception {
        return run();
    }

    /** The value last given for the option as typed, or null when it was not given. */
    String given(String option) {
        var matched = spec.commandLine().getParseResult().matchedOption(option);
        if (matched == null) {
            return null;
        }
        List<String> values = matched.stringValues();
        return values.isEmpty() ? null : values.get(values.size() - 1);
    }

    String name() {
        return spec.name();
    }

    Hint usageHint() {
        return Hint.TRY_HELP;
    }

    /** The message of an option given without its value. */
    String needsValue(String option) {
        return option + " needs a value";
    }

    /** Whether an option given twice is an error (else the last one counts). */
    boolean onceOnly() {
        return false;
    }
}
