package org.balanceroute.proxy.internal;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.function.Consumer;
import org.balanceroute.connector.vllm.VllmConnector;

/**
 * A client's event stream written straight to the servlet response, with the servlet's
 * non-blocking output ({@link WriteListener}): {@link CompletionsServlet} started the servlet's
 * async mode; a plain answer (an error, a non-streaming completion) goes through its
 * {@link PlainAnswer}, an event stream through this class, never both (the exchange chooses its
 * answer once). The 200 with {@code text/event-stream}, {@code Cache-Control: no-cache} and the
 * request id is set when the stream is opened and goes out with its first bytes; the end
 * completes the async context.
 *
 * <p>Why not Jersey's {@code ChunkedOutput} any more: it wrote and flushed each event through
 * the container's blocking stream (request scope, writer lookup, interceptors per event), so a
 * relay thread was needed to keep a slow client from blocking the HTTP client's threads, and
 * each event cost a thread hand-off, a write and a flush.
 */
final class ServletEventStream implements ClientOutput {

    private final AsyncContext context;
    private final ServletOutputStream out;

    private ServletEventStream(AsyncContext context, ServletOutputStream out) {
        this.context = context;
        this.out = out;
    }

    /**
     * Opens event streams on the request {@code request} (called on the container's thread, after
     * the servlet started its async mode); null when the request is not in
     * the servlet's async mode (then the flow answers without a stream).
     */
    static EventStreams opener(HttpServletRequest request) {
        if (request == null || !request.isAsyncStarted()) {
            return null;
        }
        AsyncContext context = request.getAsyncContext();
        return requestId -> {
            HttpServletResponse response = (HttpServletResponse) context.getResponse();
            response.setStatus(200);
            response.setContentType(CompletionFlow.EVENT_STREAM);
            response.setHeader("Cache-Control", "no-cache");
            response.setHeader(VllmConnector.REQUEST_ID_HEADER, requestId);
            try {
                return new ServletEventStream(context, response.getOutputStream());
            } catch (IOException e) {
                return null;
            }
        };
    }

    @Override
    public void start(Runnable writable, Consumer<Throwable> failed) {
        out.setWriteListener(new WriteListener() {
            @Override
            public void onWritePossible() {
                writable.run();
            }

            @Override
            public void onError(Throwable t) {
                failed.accept(t);
            }
        });
    }

    @Override
    public boolean isReady() {
        return out.isReady();
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        out.write(bytes, offset, length);
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public void close() {
        try {
            context.complete();
        } catch (IllegalStateException alreadyDone) {
            // completed or failed by the container already
        }
    }
}
