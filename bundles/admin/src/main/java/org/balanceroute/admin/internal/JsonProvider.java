package org.balanceroute.admin.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.MessageBodyReader;
import jakarta.ws.rs.ext.MessageBodyWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ServiceScope;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsExtension;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsMediaType;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsName;

/**
 * JSON for the admin resources: a small MessageBodyReader / MessageBodyWriter over Jackson's
 * {@link ObjectMapper}, registered as a prototype-scope whiteboard extension named
 * {@value #NAME}. (Jackson's own JAX-RS provider is not used: registered as a whiteboard
 * extension it makes every resource answer 500.) Malformed JSON answers 400 in the OpenAI error
 * shape. Keeps no state but the thread-safe, immutable mapper.
 */
@Component(service = {MessageBodyReader.class, MessageBodyWriter.class}, scope = ServiceScope.PROTOTYPE)
@JakartarsExtension
@JakartarsName(JsonProvider.NAME)
@JakartarsMediaType(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Produces(MediaType.APPLICATION_JSON)
public final class JsonProvider implements MessageBodyReader<Object>, MessageBodyWriter<Object> {

    /** The extension's {@code osgi.jakartars.name}, which the admin resources select. */
    public static final String NAME = "balanceroute.json";
    static final String SELECT = "(osgi.jakartars.name=" + NAME + ")";

    /** The container owns the entity streams: Jackson must not close them. */
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
            .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
            .build();

    private static boolean handles(Class<?> type, MediaType mediaType) {
        return mediaType != null && isJson(mediaType) && type != String.class && type != byte[].class
                && !InputStream.class.isAssignableFrom(type) && !OutputStream.class.isAssignableFrom(type);
    }

    private static boolean isJson(MediaType m) {
        return m.isWildcardType() || ("application".equals(m.getType())
                && ("json".equals(m.getSubtype()) || m.getSubtype().endsWith("+json") || m.isWildcardSubtype()));
    }

    @Override
    public boolean isReadable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
        return handles(type, mediaType);
    }

    @Override
    public Object readFrom(Class<Object> type, Type genericType, Annotation[] annotations, MediaType mediaType,
            MultivaluedMap<String, String> httpHeaders, InputStream entityStream) throws IOException {
        try {
            return MAPPER.readValue(entityStream, MAPPER.constructType(genericType != null ? genericType : type));
        } catch (JsonProcessingException e) {
            throw new WebApplicationException(ErrorResponses.invalid(
                    "the request body is not valid JSON: " + e.getOriginalMessage(), null));
        }
    }

    @Override
    public boolean isWriteable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
        return handles(type, mediaType);
    }

    @Override
    public void writeTo(Object value, Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType,
            MultivaluedMap<String, Object> httpHeaders, OutputStream entityStream) throws IOException {
        MAPPER.writeValue(entityStream, value);
    }
}
