package org.balanceroute.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** The live heap of a JVM, measured from outside it with jcmd (the soak's and the idle rows' heap figure). */
final class LiveHeap {

    private LiveHeap() {
    }

    /**
     * The live heap of a JVM after a full collection: {@code jcmd PID GC.run} then
     * {@code GC.heap_info} (one jcmd), the sum of its heap's {@code used} figures (G1's one line,
     * or a generational collector's generations; Metaspace excluded). -1 when the process is not
     * a JVM or jcmd fails.
     */
    static long heapAfterFullGc(long pid) {
        if (pid <= 0 || !"java".equals(ProcSample.command(pid))) {
            return -1;
        }
        java.nio.file.Path commands = null;
        try {
            commands = java.nio.file.Files.createTempFile("heap-after-gc", ".jcmd");
            java.nio.file.Files.writeString(commands, "GC.run\nGC.heap_info\n");
            java.nio.file.Path jcmd = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "jcmd");
            Process p = new ProcessBuilder(java.nio.file.Files.isExecutable(jcmd) ? jcmd.toString() : "jcmd",
                    Long.toString(pid), "-f", commands.toString()).redirectErrorStream(true).start();
            String out;
            try (java.io.InputStream in = p.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                System.err.println("proxy-overhead: jcmd " + pid + " GC.run / GC.heap_info failed: " + out.strip());
                return -1;
            }
            long used = usedHeap(out);
            if (used < 0) {
                System.err.println("proxy-overhead: no heap figure in jcmd " + pid + " GC.heap_info: " + out.strip());
            }
            return used;
        } catch (IOException e) {
            System.err.println("proxy-overhead: jcmd " + pid + ": " + e);
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        } finally {
            if (commands != null) {
                try {
                    java.nio.file.Files.deleteIfExists(commands);
                } catch (IOException ignored) {
                    // a temporary file
                }
            }
        }
    }

    private static final java.util.regex.Pattern USED = java.util.regex.Pattern.compile("\\bused (\\d+)([KMG])\\b");

    /** The bytes of the {@code used NNNK} figures of GC.heap_info's heap lines (not Metaspace's), or -1. */
    static long usedHeap(String heapInfo) {
        long used = -1;
        for (String line : heapInfo.split("\n")) {
            String l = line.strip();
            if (l.startsWith("Metaspace") || l.startsWith("class space")) {
                continue;
            }
            java.util.regex.Matcher m = USED.matcher(l);
            if (m.find()) {
                long unit = switch (m.group(2)) {
                    case "K" -> 1024L;
                    case "M" -> 1024L * 1024;
                    default -> 1024L * 1024 * 1024;
                };
                used = Math.max(used, 0) + Long.parseLong(m.group(1)) * unit;
            }
        }
        return used;
    }
}
