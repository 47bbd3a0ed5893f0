package org.balanceroute.proxy.internal;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.balanceroute.connector.vllm.VllmConnector;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/completions} and {@code POST /v1/chat/completions} as a servlet on the servlet
 * whiteboard, beside the Jersey application (an exact pattern wins over its {@code /*}): a
 * request costs {@code startAsync}, a non-blocking body read ({@link BodyReader}) and the flow,
 * without Jersey's routing, request scope and parameter injection (about a tenth of the runtime's CPU per request, measured with a
 * profiler at 64 streams). Plain answers are written here ({@link #answer}); event streams by
 * {@link ServletEventStream}. Other methods on these paths answer 405 in the OpenAI error shape.
 */
@Component(service = Servlet.class, property = {
    "osgi.http.whiteboard.servlet.pattern=/v1/completions",
    "osgi.http.whiteboard.servlet.pattern=/v1/chat/completions",
    "osgi.http.whiteboard.servlet.asyncSupported=true",
    "osgi.http.whiteboard.servlet.name=balanceroute.proxy.completions"})
public final class CompletionsServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(CompletionsServlet.class);

    private final transient CompletionFlow flow;

    @Activate
    public CompletionsServlet(@Reference(name = "flow") CompletionFlow flow) {
        this.flow = flow;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Endpoint endpoint = request.getServletPath().endsWith("/chat/completions")
                ? Endpoint.CHAT_COMPLETIONS : Endpoint.COMPLETIONS;
        AsyncContext context = request.startAsync();
        context.setTimeout(0); // the flow ends every exchange (placement timeout, upstream failures, pings)
        String requestId = request.getHeader(VllmConnector.REQUEST_ID_HEADER);
        // a plain answer is written with a blocking write, and it may come from the connector's
        // few non-blocking callback threads (a decode answer that is not a stream, a failure):
        // the container's pool writes it, so a client that does not read stalls no relay
        PlainAnswer answer = r -> context.start(() -> answer(context, r));
        BodyReader.read(request.getInputStream(), request.getContentLengthLong(), flow.maxBodyBytes(),
                body -> serve(request, endpoint, body, requestId, answer), e -> {
                    // the client's connection failed while its body was read (it left, sent less than it said, or stalled)
                    LOG.debug("a request body could not be read: {}", e.toString());
                    answer.answer(Answers.error(new OpenAiError(400, OpenAiError.INVALID_REQUEST,
                            "the request body could not be read (the connection ended early)", null), null));
                });
    }

    /** The body is in: the flow takes the request (on the container thread that read its last bytes). */
    private void serve(HttpServletRequest request, Endpoint endpoint, byte[] body, String requestId, PlainAnswer answer) {
        try {
            if (flow.acceptsMediaType(request.getContentType(), requestId, answer)) {
                flow.handle(endpoint, body, requestId, answer, ServletEventStream.opener(request));
            }
        } catch (RuntimeException e) {
            LOG.error("an unexpected failure answered 500 ({})", request.getServletPath(), e);
            answer.answer(Answers.error(new OpenAiError(500, OpenAiError.SERVER, "internal error (logged)", null), null));
        }
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if ("POST".equals(request.getMethod())) {
            doPost(request, response);
            return;
        }
        response.setHeader("Allow", "POST");
        write(response, Answers.error(new OpenAiError(405, OpenAiError.INVALID_REQUEST,
                "Method Not Allowed: this endpoint does not take that method (see the Allow header)", null), null));
    }

    private static void answer(AsyncContext context, Response r) {
        try {
            write((HttpServletResponse) context.getResponse(), r);
        } catch (IOException | RuntimeException e) {
            LOG.debug("the client went away before its answer ({}): {}", r.getStatus(), e.toString());
        } finally {
            context.complete();
        }
    }

    /** A plain answer: status, headers, the byte[] entity every answer of the flow carries. */
    private static void write(HttpServletResponse response, Response r) throws IOException {
        response.setStatus(r.getStatus());
        for (Map.Entry<String, List<String>> h : r.getStringHeaders().entrySet()) {
            for (String v : h.getValue()) {
                response.addHeader(h.getKey(), v);
            }
        }
        if (r.getEntity() instanceof byte[] b) {
            response.setContentLength(b.length);
            response.getOutputStream().write(b);
        } else if (r.getEntity() != null) {
            throw new IllegalStateException("a plain answer carries bytes, not " + r.getEntity().getClass().getName());
        }
    }
}
