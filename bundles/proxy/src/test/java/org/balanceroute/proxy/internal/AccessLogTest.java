package org.balanceroute.proxy.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.balanceroute.proxy.ProxyObserver.Outcome;
import org.junit.jupiter.api.Test;

class AccessLogTest {

    @Test
    void aLineNamesEachFieldAndADashForWhatIsNotKnown() {
        assertEquals("id=cmpl-1 model=llama pool=chat worker=3 prompt_tokens=128 output_tokens=16 ttft_ms=12.5"
                + " duration_ms=80.0 outcome=ok",
                AccessLog.line("cmpl-1", "llama", "chat", 3, 128, 16, 12_500_000, 80_000_000, Outcome.OK));
        assertEquals("id=r model=- pool=- worker=- prompt_tokens=- output_tokens=- ttft_ms=- duration_ms=0.3"
                + " outcome=rejected", AccessLog.line("r", null, null, -1, -1, -1, -1, 300_000, Outcome.REJECTED));
    }

    @Test
    void aClientsTextIsOneValueWhateverItHolds() {
        assertEquals("plain-id_1.2", AccessLog.value("plain-id_1.2"));
        assertEquals("\"a b\"", AccessLog.value("a b"));
        assertEquals("\"x=1 outcome=ok\"", AccessLog.value("x=1 outcome=ok"), "no forged field");
        assertEquals("\"say \\\"hi\\\" \\\\ \\u000a\"", AccessLog.value("say \"hi\" \\ \n"));
        assertEquals("\"é\"", AccessLog.value("é"));
        assertEquals("-", AccessLog.value(""));
    }
}
