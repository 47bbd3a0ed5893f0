package org.balanceroute.chart;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PanelChartTest {

    @Test
    void writesAGridOfPanels(@TempDir Path dir) throws Exception {
        double[] x = {0.6, 0.8, 1.0};
        PanelChart.Panel a = new PanelChart.Panel("a", List.of(new PanelChart.Line("jsq", x, new double[] {1, 1, 1}),
                new PanelChart.Line("br0", x, new double[] {2, 3, 4})));
        PanelChart.Panel b = new PanelChart.Panel("b", List.of(new PanelChart.Line("br0", x, new double[] {1, 2, 3})));
        Path png = dir.resolve("grid.png");
        PanelChart.write(png, "three panels", "load", "ratio", 2, List.of(a, b, a));
        assertArrayEquals(LoadChartTest.PNG_SIGNATURE, Arrays.copyOf(Files.readAllBytes(png), 8));
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(2 * PanelChart.PANEL_WIDTH, image.getWidth());
        assertEquals(PanelChart.TITLE_HEIGHT + 2 * PanelChart.PANEL_HEIGHT
                + PanelChart.legendHeight(2, 2 * PanelChart.PANEL_WIDTH),
                image.getHeight());
    }

    @Test
    void rejectsMismatchedLines() {
        assertThrows(IllegalArgumentException.class,
                () -> new PanelChart.Line("x", new double[] {1, 2}, new double[] {1}));
    }
}
