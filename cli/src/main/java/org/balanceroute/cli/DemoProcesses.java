package org.balanceroute.cli;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The child processes of {@code ./balanceroute demo} (the simulated clusters, the runtimes): each
 * started with a log of its own, watched while the demo waits on them (one that exits ends the
 * wait), and stopped with their descendants at the end or on Ctrl-C.
 */
final class DemoProcesses {

    /** A condition the demo waits for; an {@link IOException} means "not yet". */
    interface Check {
        boolean ok() throws Exception;
    }

    private final List<Process> children = new ArrayList<>();
    private final PrintStream err;

    DemoProcesses(PrintStream err) {
        this.err = err;
    }

    void start(String name, Path logs, List<String> command) throws IOException {
        File log = logs.resolve(name + ".log").toFile();
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log));
        pb.environment().put("BALANCEROUTE_NO_BUILD", "1"); // ./balanceroute demo built what they run
        Process p = pb.start();
        synchronized (children) {
            children.add(p);
        }
        err.println("balanceroute demo: started " + name + " (pid " + p.pid() + ", log " + log + ")");
    }

    /**
     * Polls {@code check} (backing off from 100 ms to 1 s) until it holds.
     *
     * @throws DemoException when a child exits first or the deadline ({@link System#nanoTime}) passes
     */
    void await(String what, Check check, long deadline, Path logs) throws Exception {
        long pause = 100;
        while (true) {
            for (Process p : children()) {
                if (!p.isAlive()) {
                    throw new DemoException(1, "a child process exited (status " + p.exitValue() + ") while waiting for "
                            + what + "; see the logs in " + logs.toAbsolutePath().normalize());
                }
            }
            try {
                if (check.ok()) {
                    return;
                }
            } catch (IOException e) {
                // not up yet
            }
            if (System.nanoTime() > deadline) {
                throw new DemoException(1, "timed out waiting for " + what + "; see the logs in "
                        + logs.toAbsolutePath().normalize());
            }
            Thread.sleep(pause);
            pause = Math.min(1000, pause * 2);
        }
    }

    /** Until every child has exited (Ctrl-C stops them). */
    void waitForAll() throws InterruptedException {
        for (Process p : children()) {
            p.waitFor();
        }
    }

    /** A copy: Ctrl-C's shutdown hook empties the list ({@link #stop}) while a loop may go through it. */
    private List<Process> children() {
        synchronized (children) {
            return List.copyOf(children);
        }
    }

    void stop() {
        List<Process> list;
        synchronized (children) {
            list = new ArrayList<>(children);
            children.clear();
        }
        for (Process p : list) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
        }
        for (Process p : list) {
            try {
                if (!p.waitFor(15, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }
    }

    static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
