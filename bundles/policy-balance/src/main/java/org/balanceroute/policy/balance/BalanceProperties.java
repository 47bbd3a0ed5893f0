package org.balanceroute.policy.balance;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.policy.balance.BalanceSettings.HorizonMargin;
import org.balanceroute.policy.balance.BalanceSettings.Stage1Worker;

/**
 * {@link BalanceSettings} as the configuration properties of PID {@value #PID}, both ways: the
 * policies read their configuration with {@link #fromMap} and report their parameters with
 * {@link #toMap}; the tuner reads those parameters back and the CLI writes them into its reports.
 * The keys are the metatype's attribute names ({@code BalanceConfig}).
 */
public final class BalanceProperties {

    /** The configuration PID shared by br0, brh-survival and brh-exact. */
    public static final String PID = "org.balanceroute.policy.balance";

    public static final String S_GREEDY = "sGreedy";
    public static final String R_MAX = "rMax";
    public static final String HORIZON = "horizon";
    public static final String ALPHA = "alpha";
    public static final String BETA = "beta";
    public static final String GAMMA = "gamma";
    public static final String CONFIDENCE = "confidence";
    public static final String STAGE1_WORKER = "stage1Worker";
    public static final String HORIZON_MARGIN = "horizonMargin";
    public static final String PROJECTED_SLOTS = "projectedSlots";

    private BalanceProperties() {
    }

    /** The settings as configuration properties, in the order operators read them. */
    public static Map<String, Object> toMap(BalanceSettings s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(S_GREEDY, s.sGreedy());
        m.put(R_MAX, s.rMax());
        m.put(HORIZON, s.horizon());
        m.put(ALPHA, s.alpha());
        m.put(BETA, s.beta());
        m.put(GAMMA, s.gamma());
        m.put(CONFIDENCE, s.confidence());
        m.put(STAGE1_WORKER, s.stage1Worker().value());
        m.put(HORIZON_MARGIN, s.horizonMargin().value());
        m.put(PROJECTED_SLOTS, s.projectedSlots());
        return Collections.unmodifiableMap(m);
    }

    /**
     * The settings these properties give; an absent one is its default.
     *
     * @throws ConfigurationException naming the PID, the first invalid property and its range
     */
    public static BalanceSettings fromMap(Map<String, ?> properties) {
        return read(ConfigProperties.of(PID, properties));
    }

    /** As {@link #fromMap}, from the properties as {@link ConfigProperties} reads them. */
    public static BalanceSettings read(ConfigProperties c) {
        return new BalanceSettings(
                c.intValue(S_GREEDY, BalanceSettings.DEFAULT_S_GREEDY, BalanceSettings.MIN_S_GREEDY, Integer.MAX_VALUE),
                c.intValue(R_MAX, BalanceSettings.DEFAULT_R_MAX, BalanceSettings.MIN_R_MAX, BalanceSettings.MAX_R_MAX),
                c.intValue(HORIZON, BalanceSettings.DEFAULT_HORIZON, BalanceSettings.MIN_HORIZON,
                        BalanceSettings.MAX_HORIZON),
                c.doubleValue(ALPHA, BalanceSettings.DEFAULT_ALPHA, BalanceSettings.MIN_ALPHA, Double.MAX_VALUE),
                c.doubleValue(BETA, BalanceSettings.DEFAULT_BETA, BalanceSettings.MIN_BETA, Double.MAX_VALUE),
                c.doubleValue(GAMMA, BalanceSettings.DEFAULT_GAMMA, BalanceSettings.MIN_GAMMA, BalanceSettings.MAX_GAMMA),
                c.doubleValue(CONFIDENCE, BalanceSettings.DEFAULT_CONFIDENCE, BalanceSettings.MIN_CONFIDENCE,
                        BalanceSettings.MAX_CONFIDENCE),
                Stage1Worker.parse(c.oneOf(STAGE1_WORKER, BalanceSettings.DEFAULT_STAGE1_WORKER,
                        Arrays.stream(Stage1Worker.values()).map(Stage1Worker::value).toList())),
                HorizonMargin.parse(c.oneOf(HORIZON_MARGIN, BalanceSettings.DEFAULT_HORIZON_MARGIN,
                        Arrays.stream(HorizonMargin.values()).map(HorizonMargin::value).toList())),
                c.intValue(PROJECTED_SLOTS, BalanceSettings.DEFAULT_PROJECTED_SLOTS, BalanceSettings.MIN_PROJECTED_SLOTS,
                        BalanceSettings.MAX_PROJECTED_SLOTS));
    }
}
