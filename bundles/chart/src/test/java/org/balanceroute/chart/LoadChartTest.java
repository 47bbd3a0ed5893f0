package org.balanceroute.chart;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoadChartTest {

    /** The 8-byte signature every PNG file starts with. */
    static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    @Test
    void writesAPng(@TempDir Path dir) throws Exception {
        LoadSeries twoWorkers = new LoadSeries() {
            public int workers() { return 2; }
            public int samples() { return 100; }
            public long step(int i) { return 2L * i; }
            public long load(int i, int g) { return g == 0 ? 1000 + 10L * i : 2000 - 10L * i; }
        };
        Path png = dir.resolve("load.png");
        LoadChart.write(png, "two workers", twoWorkers);
        assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(Files.readAllBytes(png), 8));
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(1200, image.getWidth());
        assertEquals(600, image.getHeight());
    }
}
