package org.balanceroute.fleet.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.balanceroute.fleet.Endpoint;
import org.junit.jupiter.api.Test;

class EndpointTest {

    @Test
    void aWorkerIsAUrlWithAnOptionalRank() {
        assertEquals(new Endpoint("http://h:1", -1), Endpoint.parse("f", "http://h:1/"));
        assertEquals(new Endpoint("http://h:1", 3), Endpoint.parse("f", " http://h:1 ;rank=3"));
        assertEquals("http://h:1;rank=3", Endpoint.parse("f", "http://h:1;rank=3").id());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Endpoint.parse("instance.a.workers", "http://h:1;rank=-1"));
        assertTrue(e.getMessage().startsWith("instance.a.workers"));
        assertThrows(IllegalArgumentException.class, () -> Endpoint.parse("f", "ftp://h:1"));
        assertThrows(IllegalArgumentException.class, () -> Endpoint.parse("f", "http://h:1;weight=2"));
    }
}
