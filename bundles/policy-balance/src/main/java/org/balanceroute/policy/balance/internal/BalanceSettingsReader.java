package org.balanceroute.policy.balance.internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.balanceroute.policy.balance.BalanceSettings;

/**
 * Turns a {@link BalanceConfig} into {@link BalanceSettings} without throwing
 * (config-or-error): a value that cannot be read or is out of range gives an error message
 * naming the field and its range.
 */
final class BalanceSettingsReader {

    /** Either settings or an error message. */
    record Result(BalanceSettings settings, String error) {

        boolean ok() {
            return settings != null;
        }
    }

    private BalanceSettingsReader() {
    }

    static Result read(BalanceConfig config) {
        try {
            int sGreedy = field("sGreedy", config::sGreedy);
            int rMax = field("rMax", config::rMax);
            int horizon = field("horizon", config::horizon);
            double alpha = field("alpha", config::alpha);
            double beta = field("beta", config::beta);
            double gamma = field("gamma", config::gamma);
            double confidence = field("confidence", config::confidence);
            BalanceSettings.Stage1Worker stage1Worker = BalanceSettings.Stage1Worker.parse(
                    field("stage1Worker", config::stage1Worker));
            BalanceSettings.HorizonMargin horizonMargin = BalanceSettings.HorizonMargin.parse(
                    field("horizonMargin", config::horizonMargin));
            int projectedSlots = field("projectedSlots", config::projectedSlots);
            return new Result(new BalanceSettings(sGreedy, rMax, horizon, alpha, beta, gamma, confidence,
                    stage1Worker, horizonMargin, projectedSlots), null);
        } catch (IllegalArgumentException e) {
            return new Result(null, e.getMessage());
        }
    }

    /** The settings as configuration properties, in the order operators read them. */
    static Map<String, Object> parameters(BalanceSettings s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sGreedy", s.sGreedy());
        m.put("rMax", s.rMax());
        m.put("horizon", s.horizon());
        m.put("alpha", s.alpha());
        m.put("beta", s.beta());
        m.put("gamma", s.gamma());
        m.put("confidence", s.confidence());
        m.put("stage1Worker", s.stage1Worker().value());
        m.put("horizonMargin", s.horizonMargin().value());
        m.put("projectedSlots", s.projectedSlots());
        return Collections.unmodifiableMap(m);
    }

    /** Reads one property; the framework's coercion of a malformed value fails on access. */
    private static <T> T field(String name, Supplier<T> value) {
        try {
            return value.get();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(name + " is not a valid number: " + e.getMessage(), e);
        }
    }
}
