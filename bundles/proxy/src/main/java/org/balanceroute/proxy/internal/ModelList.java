package org.balanceroute.proxy.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.balanceroute.fleet.Fleet;
import org.balanceroute.fleet.PoolTopology;

/** {@code GET /v1/models} as vLLM writes it ({@code {"object": "list", "data": [model cards]}}), one card per model name of every pool. */
final class ModelList {

    private ModelList() {
    }

    static ObjectNode of(Fleet fleet, long createdSeconds) {
        ObjectNode list = JsonNodeFactory.instance.objectNode().put("object", "list");
        ArrayNode data = list.putArray("data");
        for (PoolTopology pool : fleet.pools()) {
            for (String name : pool.modelNames()) {
                data.addObject().put("id", name).put("object", "model").put("created", createdSeconds)
                        .put("owned_by", "vllm").put("root", pool.model()).putNull("parent");
            }
        }
        return list;
    }
}
