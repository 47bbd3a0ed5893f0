package org.balanceroute.trace;

/** Parses the data lines of one trace format, in file order. */
interface RowParser {

    /** The format this parser reads. */
    TraceFormat format();

    /** Parses one non-blank data line (without its line terminator). */
    Row parse(String line) throws LineException;
}
