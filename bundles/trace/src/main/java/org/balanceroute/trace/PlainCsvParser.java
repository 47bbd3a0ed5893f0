package org.balanceroute.trace;

import java.util.List;

/** Plain CSV rows: arrival in seconds, token counts, and an optional prompt key. */
final class PlainCsvParser implements RowParser {

    static final List<String> HEADER = List.of("arrival_s", "input_tokens", "output_tokens");
    static final List<String> HEADER_WITH_KEY =
            List.of("arrival_s", "input_tokens", "output_tokens", "prompt_key");

    private final List<String> header;

    /** @param header {@link #HEADER} or {@link #HEADER_WITH_KEY}, as the file declared */
    PlainCsvParser(List<String> header) {
        this.header = header;
    }

    @Override
    public TraceFormat format() {
        return TraceFormat.PLAIN;
    }

    @Override
    public Row parse(String line) throws LineException {
        String[] columns = Fields.columns(line, header);
        double arrival = Fields.seconds(columns[0], header.get(0));
        int input = Fields.tokens(columns[1], header.get(1));
        int output = Fields.tokens(columns[2], header.get(2));
        long promptKey = columns.length > 3
                ? Fields.signedLong(columns[3], header.get(3))
                : TraceRequest.NO_PROMPT_KEY;
        return new Row(arrival, input, output, promptKey);
    }
}
