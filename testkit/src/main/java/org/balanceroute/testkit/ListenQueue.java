package org.balanceroute.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** What the kernel says of a listening socket's accept queue (Linux: /proc and iproute2's ss). */
public final class ListenQueue {

    private ListenQueue() {
    }

    /**
     * {@code net.core.somaxconn}, which caps every listen backlog; -1 when unreadable. One buffered
     * read: procfs answers a read at an offset past 0 of an integer sysctl with nothing, so a reader
     * that reads one byte first sees "4" of "4096".
     */
    public static int somaxconn() {
        try (BufferedReader r = Files.newBufferedReader(Path.of("/proc/sys/net/core/somaxconn"))) {
            String line = r.readLine();
            return line == null ? -1 : Integer.parseInt(line.trim());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** The backlog of the TCP listener on {@code port} as the kernel has it (ss's Send-Q); -1 without ss. */
    public static int backlog(int port) throws InterruptedException {
        java.util.List<String[]> l = listeners(port);
        for (String[] f : l == null ? java.util.List.<String[]>of() : l) {
            try {
                return Integer.parseInt(f[2]);
            } catch (NumberFormatException e) {
                return -1;
            }
        }
        return -1;
    }

    /**
     * The local addresses of the TCP listeners on {@code port} ({@code 127.0.0.1:8000},
     * {@code *:8000}, {@code [::]:8000}), as ss shows them; null without ss.
     */
    public static java.util.List<String> addresses(int port) throws InterruptedException {
        java.util.List<String[]> l = listeners(port);
        return l == null ? null : l.stream().map(f -> f[3]).toList();
    }

    /** ss's LISTEN lines on {@code port}, split into fields; null without ss. */
    private static java.util.List<String[]> listeners(int port) throws InterruptedException {
        try {
            Process p = new ProcessBuilder("ss", "-ltnH", "sport = :" + port).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                return null;
            }
            java.util.List<String[]> lines = new java.util.ArrayList<>();
            for (String line : out.split("\n")) {
                String[] f = line.trim().split("\\s+");
                if (f.length >= 4 && f[0].equals("LISTEN")) {
                    lines.add(f);
                }
            }
            return lines;
        } catch (IOException e) {
            return null; // no ss
        }
    }

    /** TcpExt ListenOverflows of the whole machine (/proc/net/netstat); -1 when unreadable. */
    public static long overflows() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/net/netstat"));
            for (int i = 0; i + 1 < lines.size(); i++) {
                if (lines.get(i).startsWith("TcpExt:") && lines.get(i + 1).startsWith("TcpExt:")) {
                    String[] names = lines.get(i).split("\\s+");
                    String[] values = lines.get(i + 1).split("\\s+");
                    for (int k = 1; k < names.length && k < values.length; k++) {
                        if (names[k].equals("ListenOverflows")) {
                            return Long.parseLong(values[k]);
                        }
                    }
                }
            }
        } catch (IOException | NumberFormatException e) {
            // unknown
        }
        return -1;
    }

    /** Whether a listening address from {@link #addresses} is 127.0.0.1 (also as the IPv4-mapped {@code [::ffff:127.0.0.1]} a dual-stack socket shows). */
    public static boolean loopback(String address) {
        return address.startsWith("127.0.0.1:") || address.startsWith("[::ffff:127.0.0.1]:");
    }
}
