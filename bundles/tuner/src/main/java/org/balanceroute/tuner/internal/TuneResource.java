package org.balanceroute.tuner.internal;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsExtensionSelect;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsName;
import org.osgi.service.jakartars.whiteboard.propertytypes.JakartarsResource;

/**
 * {@code GET /admin/tune}: the tuner's state and its last report; {@code POST /admin/tune}: starts
 * a search (unless one runs) and answers 202 with the state, or with {@code ?wait=S} waits up to S
 * seconds for the report (200, or 202 if it is still running); {@code ?apply=true} applies the
 * winner of this search when its gain clears the margin, as {@code autoApply} does for every search. Behind the admin API's credentials
 * and JSON provider, as every {@code /admin} resource.
 */
@Component(service = TuneResource.class)
@JakartarsResource
@JakartarsName("balanceroute.admin.tune")
@JakartarsExtensionSelect({TuneResource.JSON_SELECT, TuneResource.AUTH_SELECT})
@Path("admin/tune")
public final class TuneResource {

    /** The admin bundle's JSON provider and credentials filter, by their whiteboard names. */
    static final String JSON_SELECT = "(osgi.jakartars.name=balanceroute.json)";
    static final String AUTH_SELECT = "(osgi.jakartars.name=balanceroute.admin.auth)";
    static final int MAX_WAIT_SECONDS = 600;

    private final TunerComponent tuner;

    @Activate
    public TuneResource(@Reference(name = "tuner") TunerComponent tuner) {
        this.tuner = tuner;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Object> status() {
        return tuner.status();
    }

    @POST
    @Produces(MediaType.APPLICATION_JSON)
    public Response start(@QueryParam("wait") Double waitSeconds, @QueryParam("apply") boolean apply) {
        if (waitSeconds != null && !(waitSeconds >= 0 && waitSeconds <= MAX_WAIT_SECONDS)) {
            Map<String, Object> error = new LinkedHashMap<>();
            error.put("error", "wait must be a number of seconds in [0, " + MAX_WAIT_SECONDS + "], got " + waitSeconds);
            return Response.status(Response.Status.BAD_REQUEST).entity(error).build();
        }
        CompletableFuture<Map<String, Object>> search = tuner.start(apply ? "on demand, apply" : "on demand", apply);
        if (waitSeconds != null && waitSeconds > 0) {
            try {
                search.get((long) (waitSeconds * 1000), TimeUnit.MILLISECONDS);
                return Response.ok(tuner.status()).build();
            } catch (TimeoutException e) {
                // still running: 202 below
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException e) {
                // the report carries the error
            }
        }
        return Response.accepted(tuner.status()).build();
    }
}
