package org.balanceroute.console.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** The console page's chart history, PID {@value #PID}. */
@ObjectClassDefinition(name = "BalanceRoute console page",
        description = "The chart history of /system/console/balanceroute: how often the router's view is sampled "
                + "and how many samples are kept (server-side, one ring for every viewer). An invalid value is "
                + "rejected with an error in the log, and the previous configuration stays in force.")
@interface ConsolePluginConfig {

    String PID = "org.balanceroute.console";
    int DEFAULT_HISTORY_SAMPLES = 600;
    int DEFAULT_SAMPLE_INTERVAL_MILLIS = 1000;
    int MIN_HISTORY_SAMPLES = 10;
    int MAX_HISTORY_SAMPLES = 86_400;
    int MIN_SAMPLE_INTERVAL_MILLIS = 100;
    int MAX_SAMPLE_INTERVAL_MILLIS = 60_000;

    @AttributeDefinition(name = "History samples", min = "10", max = "86400",
            description = "Samples kept per pool for its charts (at the default interval, 600 = the last 10 minutes). "
                    + "Integer in [10, 86400]; default 600.")
    int historySamples() default DEFAULT_HISTORY_SAMPLES;

    @AttributeDefinition(name = "Sample interval (ms)", min = "100", max = "60000",
            description = "Time between two samples of every pool's router. Integer in [100, 60000]; default 1000.")
    int sampleIntervalMillis() default DEFAULT_SAMPLE_INTERVAL_MILLIS;
}
