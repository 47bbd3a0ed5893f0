package org.balanceroute.testkit;

import java.lang.reflect.Proxy;
import java.util.Map;

/**
 * Instances of a Declarative Services component property type for plain-constructor tests:
 * the given values by method name, else the method's default. A {@link RuntimeException} as a
 * value is thrown on access, as the framework does for a value it cannot convert.
 */
public final class ComponentConfigs {

    private ComponentConfigs() {
    }

    @SuppressWarnings("unchecked")
    public static <A> A of(Class<A> type, Map<String, ?> values) {
        return (A) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            String name = method.getName();
            if (values.containsKey(name)) {
                Object v = values.get(name);
                if (v instanceof RuntimeException e) {
                    throw e;
                }
                return v;
            }
            if (method.getDefaultValue() != null) {
                return method.getDefaultValue();
            }
            return switch (name) {
                case "annotationType" -> type;
                case "toString" -> type.getSimpleName() + values;
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> throw new UnsupportedOperationException(name);
            };
        });
    }
}
