package org.balanceroute.tuner.internal;

import java.lang.reflect.Proxy;

/** A {@link TunerConfig} whose every property is its declared default (what SCR gives with no configuration). */
final class Defaults {

    static final TunerConfig CONFIG = (TunerConfig) Proxy.newProxyInstance(TunerConfig.class.getClassLoader(),
            new Class<?>[] {TunerConfig.class}, (proxy, method, args) -> switch (method.getName()) {
                case "annotationType" -> TunerConfig.class;
                case "toString" -> "TunerConfig(defaults)";
                case "hashCode" -> 0;
                case "equals" -> proxy == args[0];
                default -> method.getDefaultValue();
            });

    private Defaults() {
    }
}
