package org.balanceroute.api;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Objects;

/**
 * Names the property behind a configuration value that cannot be read. A component's
 * configuration arrives as an annotation-typed proxy (DS 1.3 component property types) whose
 * accessors convert the raw values; a value that does not convert (a {@code .cfg} file's
 * {@code maxBodyBytes = abc}) makes the accessor throw the framework's own exception, whose
 * message names neither the property nor the value, and which a component that catches
 * {@link IllegalArgumentException} for its range checks lets escape (the framework then logs it
 * where nobody looks). {@link #named} wraps such a proxy so that every accessor failure is an
 * {@link IllegalArgumentException} naming the property and quoting the framework's reason: the
 * component's config-or-error path then logs it with the PID and keeps the previous configuration.
 * Plain Java; no OSGi types.
 */
public final class ConfigValues {

    private ConfigValues() {
    }

    /**
     * {@code config} with accessors that fail only with {@link IllegalArgumentException}
     * ({@code "maxBodyBytes: cannot be read as int (NumberFormatException: For input string: \"abc\")"}).
     */
    public static <T> T named(Class<T> type, T config) {
        Objects.requireNonNull(type, "type");
        if (config == null || Proxy.isProxyClass(config.getClass())
                && Proxy.getInvocationHandler(config) instanceof Naming) {
            return config;
        }
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, new Naming(config)));
    }

    private static final class Naming implements java.lang.reflect.InvocationHandler {
        private final Object target;

        Naming(Object target) {
            this.target = target;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            try {
                // the component property type is usually package-private in the component's package
                method.setAccessible(true);
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (method.getParameterCount() > 0) {
                    throw cause;
                }
                throw new IllegalArgumentException(method.getName() + ": cannot be read as "
                        + method.getReturnType().getSimpleName() + " (" + reason(cause) + ")", cause);
            }
        }

        private static String reason(Throwable t) {
            Throwable root = t;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            String m = root.getMessage();
            return root.getClass().getSimpleName() + (m == null ? "" : ": " + m);
        }
    }
}
