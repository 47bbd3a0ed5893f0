package org.balanceroute.console.internal;

import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;

/** The chart history's configuration ({@link ConsolePluginConfig}), as {@link #read} checked it. */
record HistorySettings(int historySamples, long sampleIntervalMillis) {

    /** @throws ConfigurationException naming the invalid property and its range */
    static HistorySettings read(ConfigProperties c) {
        return new HistorySettings(
                c.intValue("historySamples", ConsolePluginConfig.DEFAULT_HISTORY_SAMPLES,
                        ConsolePluginConfig.MIN_HISTORY_SAMPLES, ConsolePluginConfig.MAX_HISTORY_SAMPLES),
                c.intValue("sampleIntervalMillis", ConsolePluginConfig.DEFAULT_SAMPLE_INTERVAL_MILLIS,
                        ConsolePluginConfig.MIN_SAMPLE_INTERVAL_MILLIS, ConsolePluginConfig.MAX_SAMPLE_INTERVAL_MILLIS));
    }
}
