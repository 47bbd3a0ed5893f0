package org.balanceroute.trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Loads a trace file in any {@link TraceFormat}, detected from its first non-blank line.
 * Blank lines are skipped (but counted for line numbers), Windows line endings and a UTF-8
 * byte order mark are tolerated; anything else that is off fails the whole load.
 */
public final class TraceLoader {

    private TraceLoader() {
    }

    /**
     * Reads {@code file}, then sorts by arrival (stable), keeps requests with more than
     * {@code minOutput} output tokens, keeps the first {@code limit}, and makes arrivals
     * relative to the first kept request, divided by {@code rateScale}.
     *
     * @throws TraceFormatException if the file is missing, unreadable, empty, of an unknown
     *     format, or any line is malformed; nothing is returned from a partly valid file
     */
    public static Trace load(Path file, TraceOptions options) throws TraceFormatException {
        Objects.requireNonNull(options, "options");
        Path name = Objects.requireNonNull(file, "file").getFileName();
        String fileName = name != null ? name.toString() : file.toString();

        List<Row> rows = new ArrayList<>();
        RowParser parser = null;
        // A lenient decoder: invalid UTF-8 becomes U+FFFD, which no field accepts, so the
        // error names the exact line and field instead of wherever the read-ahead tripped.
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(Files.newInputStream(file), StandardCharsets.UTF_8))) {
            int lineNumber = 0;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                lineNumber++;
                if (lineNumber == 1 && line.startsWith("\uFEFF")) {
                    line = line.substring(1);
                }
                if (line.isBlank()) {
                    continue;
                }
                try {
                    if (parser == null) {
                        parser = detect(line, options);
                        if (parser == null) {
                            throw new LineException(null, "unknown format: expected the Azure header '"
                                    + String.join(",", AzureCsvParser.HEADER) + "', the plain header '"
                                    + String.join(",", PlainCsvParser.HEADER)
                                    + "[,prompt_key]' or a Mooncake JSON object, got " + Fields.quote(line));
                        }
                        if (parser.format() != TraceFormat.MOONCAKE) {
                            continue; // a CSV header; Mooncake files start with a request instead
                        }
                    }
                    rows.add(parser.parse(line));
                } catch (LineException e) {
                    throw new TraceFormatException(fileName, lineNumber, e.field(), e.getMessage(), null);
                }
            }
        } catch (NoSuchFileException e) {
            throw new TraceFormatException(fileName, "no such file (" + file.toAbsolutePath() + ")", e);
        } catch (IOException e) {
            throw new TraceFormatException(fileName, "cannot read: " + e, e);
        }

        if (parser == null) {
            throw new TraceFormatException(fileName, "empty file", null);
        }
        if (rows.isEmpty()) {
            throw new TraceFormatException(fileName, "no requests after the header", null);
        }
        return new Trace(fileName, parser.format(), cut(rows, options));
    }

    /** The parser for a file whose first non-blank line is {@code line}; null if none fits. */
    private static RowParser detect(String line, TraceOptions options) {
        if (line.strip().startsWith("{")) {
            return new MooncakeJsonParser(options.promptPrefixBlocks());
        }
        List<String> header = Arrays.asList(line.split(",", -1));
        header.replaceAll(String::strip);
        if (header.equals(AzureCsvParser.HEADER)) {
            return new AzureCsvParser();
        }
        if (header.equals(PlainCsvParser.HEADER) || header.equals(PlainCsvParser.HEADER_WITH_KEY)) {
            return new PlainCsvParser(List.copyOf(header));
        }
        return null;
    }

    /** Sort, filter, limit, then rebase and scale the arrivals, in that order. */
    private static List<TraceRequest> cut(List<Row> rows, TraceOptions options) {
        // The shared traces are already sorted; List.sort is stable, so ties keep file order.
        rows.sort(Comparator.comparingDouble(Row::arrivalSeconds));
        List<TraceRequest> requests = new ArrayList<>(rows.size());
        double start = 0;
        for (Row row : rows) {
            if (options.minOutput() >= 0 && row.outputTokens() <= options.minOutput()) {
                continue;
            }
            if (options.limit() > 0 && requests.size() == options.limit()) {
                break;
            }
            if (requests.isEmpty()) {
                start = row.arrivalSeconds();
            }
            requests.add(new TraceRequest((row.arrivalSeconds() - start) / options.rateScale(),
                    row.inputTokens(), row.outputTokens(), row.promptKey()));
        }
        return requests;
    }
}
