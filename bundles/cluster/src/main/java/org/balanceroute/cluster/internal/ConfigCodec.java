package org.balanceroute.cluster.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Dictionary;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * Configuration properties as bytes (what crosses bundle class loaders and the network), and
 * their normalized form (what decides whether two replicas' configurations differ).
 *
 * <p><b>Format</b> (version {@value #VERSION}): a version byte, the entry count, then per entry
 * the key (modified UTF-8) and a typed value: a type byte ({@code S} String, {@code I} Integer,
 * {@code J} Long, {@code D} Double, {@code F} Float, {@code Z} Boolean, {@code H} Short,
 * {@code B} Byte, {@code C} Character) and the value; an array is {@code [} followed by the
 * element type, the length and the elements; a collection {@code (} likewise. Primitive arrays are
 * written as arrays of their boxed type and read back so; collections come back as lists. Keys
 * sorted, so equal properties encode to equal bytes.
 *
 * <p><b>Framework keys</b> ({@code service.pid}, {@code service.factoryPid},
 * {@code service.bundleLocation}, {@code felix.fileinstall.filename}, {@code component.*}) are
 * per replica: never encoded, never compared.
 */
final class ConfigCodec {

    static final int VERSION = 1;
    static final String FILEINSTALL_FILENAME = "felix.fileinstall.filename";
    private static final Set<String> FRAMEWORK_KEYS = Set.of("service.pid", "service.factoryPid",
            "service.bundleLocation", FILEINSTALL_FILENAME);

    /** The type bytes, and the classes each stands for (boxed, primitive). */
    private static final String TYPE_CODES = "SIJDFZHBC";
    private static final Class<?>[] BOXED = {String.class, Integer.class, Long.class, Double.class, Float.class,
        Boolean.class, Short.class, Byte.class, Character.class};
    private static final Class<?>[] PRIMITIVE = {null, int.class, long.class, double.class, float.class,
        boolean.class, short.class, byte.class, char.class};

    private ConfigCodec() {
    }

    /** Whether a key belongs to the framework (this replica's own), not to the configuration. */
    static boolean frameworkKey(String key) {
        return FRAMEWORK_KEYS.contains(key) || key.startsWith("component.");
    }

    /** The configuration's properties without the framework keys, sorted by key. */
    static Map<String, Object> properties(Dictionary<String, ?> d) {
        Map<String, Object> out = new TreeMap<>();
        if (d != null) {
            for (Enumeration<String> keys = d.keys(); keys.hasMoreElements(); ) {
                String k = keys.nextElement();
                if (!frameworkKey(k)) {
                    out.put(k, d.get(k));
                }
            }
        }
        return out;
    }

    /**
     * The properties encoded (framework keys left out).
     *
     * @throws IllegalArgumentException naming the key of a value of a type ConfigAdmin does not allow
     */
    static byte[] encode(Map<String, ?> properties) {
        Map<String, Object> sorted = new TreeMap<>();
        properties.forEach((k, v) -> {
            if (!frameworkKey(k)) {
                sorted.put(k, v);
            }
        });
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + 32 * sorted.size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeInt(sorted.size());
            for (Map.Entry<String, Object> e : sorted.entrySet()) {
                out.writeUTF(e.getKey());
                writeValue(out, e.getKey(), e.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * The properties of encoded bytes, sorted by key.
     *
     * @throws IllegalArgumentException if the bytes are not of this format
     */
    static Map<String, Object> decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int version = in.readUnsignedByte();
            if (version != VERSION) {
                throw new IllegalArgumentException("unknown configuration encoding version " + version);
            }
            int n = in.readInt();
            if (n < 0 || n > 100_000) {
                throw new IllegalArgumentException("bad entry count " + n);
            }
            Map<String, Object> out = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                String key = in.readUTF();
                out.put(key, readValue(in, key));
            }
            if (in.read() != -1) {
                throw new IllegalArgumentException("trailing bytes after " + n + " entries");
            }
            return out;
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated configuration encoding: " + e, e);
        }
    }

    /**
     * The properties as text, framework keys left out: a scalar as {@code String.valueOf}, an
     * array or collection as its elements'. Two replicas' configurations are the same when these
     * are equal: a value a {@code .cfg} file gives as text ({@code 8}) equals the typed one
     * ({@code Integer 8}) ConfigAdmin was given elsewhere, so a file's write-back never starts a
     * round of updates.
     */
    static Map<String, String> normalized(Map<String, ?> properties) {
        Map<String, String> out = new TreeMap<>();
        properties.forEach((k, v) -> {
            if (!frameworkKey(k) && v != null) {
                out.put(k, text(v));
            }
        });
        return out;
    }

    private static String text(Object v) {
        if (v.getClass().isArray()) {
            StringJoiner j = new StringJoiner("\u0000", "\u0001[", "]");
            for (int i = 0, n = Array.getLength(v); i < n; i++) {
                j.add(String.valueOf(Array.get(v, i)));
            }
            return j.toString();
        }
        if (v instanceof Collection<?> c) {
            return text(c.toArray());
        }
        return String.valueOf(v);
    }

    private static void writeValue(DataOutputStream out, String key, Object v) throws IOException {
        if (v != null && v.getClass().isArray()) {
            char type = typeOf(key, v.getClass().getComponentType());
            out.writeByte('[');
            out.writeByte(type);
            int n = Array.getLength(v);
            out.writeInt(n);
            for (int i = 0; i < n; i++) {
                writeScalar(out, key, type, Array.get(v, i));
            }
        } else if (v instanceof Collection<?> c) {
            Object first = c.isEmpty() ? "" : c.iterator().next();
            char type = typeOf(key, first == null ? String.class : first.getClass());
            out.writeByte('(');
            out.writeByte(type);
            out.writeInt(c.size());
            for (Object o : c) {
                writeScalar(out, key, type, o);
            }
        } else {
            char type = typeOf(key, v == null ? Void.class : v.getClass());
            out.writeByte(type);
            writeScalar(out, key, type, v);
        }
    }

    private static char typeOf(String key, Class<?> c) {
        for (int i = 0; i < BOXED.length; i++) {
            if (c == BOXED[i] || c == PRIMITIVE[i]) {
                return TYPE_CODES.charAt(i);
            }
        }
        throw new IllegalArgumentException("property " + key + ": a " + c.getSimpleName()
                + " is not a configuration value (String, Integer, Long, Double, Float, Boolean, Short, Byte, "
                + "Character, or an array or collection of one of them)");
    }

    private static void writeScalar(DataOutputStream out, String key, char type, Object v) throws IOException {
        if (v == null) {
            throw new IllegalArgumentException("property " + key + ": null element");
        }
        if (typeOf(key, v.getClass()) != type) {
            throw new IllegalArgumentException("property " + key + ": mixed element types");
        }
        switch (type) {
            case 'S' -> writeString(out, (String) v);
            case 'I' -> out.writeInt((Integer) v);
            case 'J' -> out.writeLong((Long) v);
            case 'D' -> out.writeDouble((Double) v);
            case 'F' -> out.writeFloat((Float) v);
            case 'Z' -> out.writeBoolean((Boolean) v);
            case 'H' -> out.writeShort((Short) v);
            case 'B' -> out.writeByte((Byte) v);
            case 'C' -> out.writeChar((Character) v);
            default -> throw new IllegalStateException(String.valueOf(type));
        }
    }

    /** Strings as length + UTF-8 (writeUTF stops at 64 KiB; a worker list may be long). */
    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static Object readValue(DataInputStream in, String key) throws IOException {
        int tag = in.readUnsignedByte();
        if (tag == '[' || tag == '(') {
            char type = (char) in.readUnsignedByte();
            int n = in.readInt();
            if (n < 0 || n > 10_000_000) {
                throw new IllegalArgumentException("property " + key + ": bad length " + n);
            }
            if (tag == '(') {
                List<Object> list = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    list.add(readScalar(in, key, type));
                }
                return list;
            }
            Object array = Array.newInstance(boxed(key, type), n);
            for (int i = 0; i < n; i++) {
                Array.set(array, i, readScalar(in, key, type));
            }
            return array;
        }
        return readScalar(in, key, (char) tag);
    }

    private static Class<?> boxed(String key, char type) {
        int i = TYPE_CODES.indexOf(type);
        if (i < 0) {
            throw new IllegalArgumentException("property " + key + ": unknown type '" + type + "'");
        }
        return BOXED[i];
    }

    private static Object readScalar(DataInputStream in, String key, char type) throws IOException {
        return switch (type) {
            case 'S' -> {
                int n = in.readInt();
                if (n < 0 || n > 64 * 1024 * 1024) {
                    throw new IllegalArgumentException("property " + key + ": bad string length " + n);
                }
                byte[] b = new byte[n];
                in.readFully(b);
                yield new String(b, java.nio.charset.StandardCharsets.UTF_8);
            }
            case 'I' -> in.readInt();
            case 'J' -> in.readLong();
            case 'D' -> in.readDouble();
            case 'F' -> in.readFloat();
            case 'Z' -> in.readBoolean();
            case 'H' -> in.readShort();
            case 'B' -> in.readByte();
            case 'C' -> in.readChar();
            default -> throw new IllegalArgumentException("property " + key + ": unknown type '" + type + "'");
        };
    }
}
