package org.balanceroute.admin.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.Map;
import org.balanceroute.api.RoutingPolicy;
import org.junit.jupiter.api.Test;

class MetaTypeSchemasTest {

    private final MetaTypeSchemas schemas = new MetaTypeSchemas(
            ShippedBundle.metaTypeService(ShippedSchemasTest.EXAMPLE));

    @Test
    void aPidTheBundlesMetatypeDoesNotDescribeIsListedWithoutParameters() {
        schemas.policies = List.of(ShippedSchemasTest.EXAMPLE.reference(Map.of(RoutingPolicy.NAME_PROPERTY, "other",
                RoutingPolicy.CONFIG_PID_PROPERTY, "org.example.undescribed"), 1));
        PolicySchemas.PolicySchema s = schemas.byName().get("other");
        assertEquals("org.example.undescribed", s.pid());
        assertEquals(List.of(), s.tunables());
    }

    @Test
    void aNameRegisteredTwiceIsTheOneTheFrameworkRanksFirst() {
        schemas.policies = List.of(
                ShippedSchemasTest.EXAMPLE.reference(Map.of(RoutingPolicy.NAME_PROPERTY, "least-running"), 7),
                ShippedSchemasTest.EXAMPLE.reference(Map.of(RoutingPolicy.NAME_PROPERTY, "least-running",
                        RoutingPolicy.CONFIG_PID_PROPERTY, "org.balanceroute.policy.example"), 3));
        assertEquals("org.balanceroute.policy.example", schemas.byName().get("least-running").pid(),
                "the lower service id wins, as the router picks it");
    }

    @Test
    void aSchemaIsReadOncePerBundleAndPid() {
        List<Tunable> first = schemas.schema("least-running", ShippedSchemasTest.EXAMPLE.bundle,
                "org.balanceroute.policy.example");
        assertSame(first, schemas.schema("least-running", ShippedSchemasTest.EXAMPLE.bundle,
                "org.balanceroute.policy.example"));
        assertEquals("queuedWeight", first.get(0).id());
    }
}
