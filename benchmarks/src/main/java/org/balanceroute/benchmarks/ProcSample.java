package org.balanceroute.benchmarks;

import java.io.IOException;
import java.util.Map;

/**
 * A process's CPU time, context switches, threads, open files and resident memory, read from
 * /proc at {@code nanos} ({@link System#nanoTime()}): {@code utime + stime} of /proc/PID/stat
 * (the whole thread group), the sum over /proc/PID/task/* of {@code voluntary_ctxt_switches +
 * nonvoluntary_ctxt_switches} (/proc/PID/status alone counts the main thread only), the entries
 * of /proc/PID/task and /proc/PID/fd, {@code VmRSS}, and the read and write system calls the
 * process made ({@code syscr + syscw} of /proc/PID/io: a socket read or write is one; how well
 * the relay batches tokens per call shows there). Threads that end between two samples
 * take their switches with them. A figure that cannot be read is -1; the CPU time is the one
 * that must be there (read twice before giving up).
 */
record ProcSample(long nanos, double cpuSeconds, long switches, int threads, int openFds, long rssBytes,
        long syscalls, Map<String, Double> threadCpu) {

    /**
     * From one sample to a later one; threads, open files and memory are the later sample's;
     * {@code busiestThreadCpuSeconds}: the most CPU one thread took in between (-1 when the
     * threads' times were not read).
     */
    record Delta(double seconds, double cpuSeconds, long switches, int threads, int openFds, long rssBytes,
            long syscalls, double busiestThreadCpuSeconds) {

        /** CPU seconds per 100k tokens. */
        double cpuPer100k(long tokens) {
            return cpuSeconds / tokens * 100_000;
        }
    }

    Delta minus(ProcSample before) {
        double busiest = -1;
        if (threadCpu != null && before.threadCpu != null) {
            for (Map.Entry<String, Double> t : threadCpu.entrySet()) {
                busiest = Math.max(busiest, t.getValue() - before.threadCpu.getOrDefault(t.getKey(), 0.0));
            }
        }
        return new Delta((nanos - before.nanos) / 1e9, cpuSeconds - before.cpuSeconds,
                switches < 0 || before.switches < 0 ? -1 : switches - before.switches, threads, openFds, rssBytes,
                syscalls < 0 || before.syscalls < 0 ? -1 : syscalls - before.syscalls, busiest);
    }

    /** The delta from {@code before} to {@code after}; null when either is. */
    static Delta between(ProcSample before, ProcSample after) {
        return before == null || after == null ? null : after.minus(before);
    }

    /** Null when the process's CPU time cannot be read (it ended, or pid is 0). */
    static ProcSample read(long pid, int clockTicks) {
        return read(pid, clockTicks, false);
    }

    /** With {@code perThread}, each thread's CPU time too (/proc/PID/task/TID/stat). */
    static ProcSample read(long pid, int clockTicks, boolean perThread) {
        if (pid <= 0) {
            return null;
        }
        long nanos = System.nanoTime();
        java.nio.file.Path proc = java.nio.file.Path.of("/proc/" + pid);
        double cpu;
        try {
            cpu = cpuSeconds(proc, clockTicks);
        } catch (IOException | RuntimeException first) {
            try {
                cpu = cpuSeconds(proc, clockTicks);
            } catch (IOException | RuntimeException e) {
                System.err.println("proxy-overhead: cannot read /proc/" + pid + "/stat: " + e);
                return null;
            }
        }
        long switches = 0;
        int threads = 0;
        Map<String, Double> threadCpu = perThread ? new java.util.HashMap<>() : null;
        try (java.nio.file.DirectoryStream<java.nio.file.Path> tasks = java.nio.file.Files.newDirectoryStream(
                proc.resolve("task"))) {
            for (java.nio.file.Path t : tasks) {
                try {
                    for (String line : java.nio.file.Files.readAllLines(t.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")
                                || line.startsWith("nonvoluntary_ctxt_switches:")) {
                            switches += Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                        }
                    }
                    if (threadCpu != null) {
                        threadCpu.put(t.getFileName().toString(), cpuSeconds(t, clockTicks));
                    }
                    threads++;
                } catch (IOException | RuntimeException ended) {
                    // the thread ended while listed
                }
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("proxy-overhead: cannot read /proc/" + pid + "/task: " + e);
            switches = -1;
            threads = -1;
        }
        int fds = -1;
        try (java.nio.file.DirectoryStream<java.nio.file.Path> open = java.nio.file.Files.newDirectoryStream(
                proc.resolve("fd"))) {
            fds = 0;
            for (java.nio.file.Path ignored : open) {
                fds++;
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("proxy-overhead: cannot read /proc/" + pid + "/fd: " + e);
        }
        long rss = -1;
        try {
            for (String line : java.nio.file.Files.readAllLines(proc.resolve("status"))) {
                if (line.startsWith("VmRSS:")) { // "VmRSS:     123456 kB"
                    rss = Long.parseLong(line.substring(6).replace("kB", "").strip()) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("proxy-overhead: cannot read /proc/" + pid + "/status: " + e);
        }
        long syscalls = -1;
        try {
            long sum = 0;
            for (String line : java.nio.file.Files.readAllLines(proc.resolve("io"))) {
                if (line.startsWith("syscr:") || line.startsWith("syscw:")) {
                    sum += Long.parseLong(line.substring(6).strip());
                }
            }
            syscalls = sum;
        } catch (IOException | RuntimeException e) {
            // another user's process: /proc/PID/io is not readable; the figure is left out
        }
        return new ProcSample(nanos, cpu, switches, threads, fds, rss, syscalls, threadCpu);
    }

    private static double cpuSeconds(java.nio.file.Path proc, int clockTicks) throws IOException {
        String stat = java.nio.file.Files.readString(proc.resolve("stat"));
        // fields after the command name (which may hold spaces), from field 3 on: utime is 14, stime 15
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / (double) clockTicks;
    }

    /** The soft limit on open files of the process ("Max open files" of /proc/PID/limits), or -1. */
    static long openFilesLimit(long pid) {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/" + pid + "/limits"))) {
                if (line.startsWith("Max open files")) {
                    String soft = line.substring("Max open files".length()).strip().split("\\s+")[0];
                    return "unlimited".equals(soft) ? Long.MAX_VALUE : Long.parseLong(soft);
                }
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("proxy-overhead: cannot read /proc/" + pid + "/limits: " + e);
        }
        return -1;
    }

    /** The process's command name (/proc/PID/comm: "java" for a JVM), or "". */
    static String command(long pid) {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/comm")).strip();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
