package org.balanceroute.policy.balance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.balanceroute.api.config.ConfigurationException;
import org.junit.jupiter.api.Test;

class BalancePropertiesTest {

    @Test
    void settingsSurviveTheRoundTrip() {
        BalanceSettings s = new BalanceSettings(3, 5, 40, 0.5, 2.0, 0.9, 0.7, BalanceSettings.Stage1Worker.SLOTS,
                BalanceSettings.HorizonMargin.NOW, 7);
        assertEquals(s, BalanceProperties.fromMap(BalanceProperties.toMap(s)));
        assertEquals(BalanceSettings.defaults(), BalanceProperties.fromMap(Map.of()));
    }

    @Test
    void aCfgFileIsText() {
        BalanceSettings s = BalanceProperties.fromMap(Map.of("rMax", "4", "gamma", "0.5", "horizonMargin", " min "));
        assertEquals(4, s.rMax());
        assertEquals(0.5, s.gamma());
        assertEquals(BalanceSettings.HorizonMargin.MIN, s.horizonMargin());
    }

    @Test
    void anOptionOutsideItsValuesNamesThem() {
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> BalanceProperties.fromMap(Map.of("stage1Worker", "load")));
        assertEquals("org.balanceroute.policy.balance: stage1Worker must be one of slots, margin, got 'load'",
                e.getMessage());
    }
}
