package org.balanceroute.chart;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.Paint;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.DefaultDrawingSupplier;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * A grid of small line charts that share their lines' names, colours and axis labels (a
 * "small multiples" figure, e.g. a ratio against offered load per trace and G), as one PNG.
 * A line keeps its colour in every panel; the legend is drawn once, under the grid.
 */
public final class PanelChart {

    static final int PANEL_WIDTH = 520;
    static final int PANEL_HEIGHT = 340;
    static final int TITLE_HEIGHT = 40;
    static final int LEGEND_ENTRY_WIDTH = 150;
    static final int LEGEND_ROW_HEIGHT = 22;

    /** One line of a panel: y[i] at x[i]. */
    public record Line(String name, double[] x, double[] y) {

        public Line {
            if (x.length != y.length) {
                throw new IllegalArgumentException("line " + name + ": " + x.length + " x values, " + y.length
                        + " y values");
            }
        }
    }

    /** One small chart of the grid. */
    public record Panel(String title, List<Line> lines) {
    }

    private PanelChart() {
    }

    /**
     * Draws {@code panels} row by row, {@code columns} a row, into {@code png} (replaced if it
     * exists), headless.
     */
    public static void write(Path png, String title, String xLabel, String yLabel, int columns, List<Panel> panels)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        if (columns < 1 || panels.isEmpty()) {
            throw new IllegalArgumentException("need at least one column and one panel");
        }
        Map<String, Paint> colours = new LinkedHashMap<>();
        DefaultDrawingSupplier supplier = new DefaultDrawingSupplier();
        for (Panel p : panels) {
            for (Line l : p.lines()) {
                colours.computeIfAbsent(l.name(), n -> supplier.getNextPaint());
            }
        }
        int rows = (panels.size() + columns - 1) / columns;
        int width = columns * PANEL_WIDTH;
        int height = TITLE_HEIGHT + rows * PANEL_HEIGHT + legendHeight(colours.size(), width);
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            new TextTitle(title, new Font(Font.SANS_SERIF, Font.BOLD, 18))
                    .draw(g, new Rectangle2D.Double(0, 8, width, TITLE_HEIGHT - 8));
            for (int i = 0; i < panels.size(); i++) {
                JFreeChart chart = panel(panels.get(i), xLabel, yLabel, colours);
                chart.draw(g, new Rectangle2D.Double((i % columns) * PANEL_WIDTH,
                        TITLE_HEIGHT + (i / columns) * PANEL_HEIGHT, PANEL_WIDTH, PANEL_HEIGHT));
            }
            legend(g, colours, TITLE_HEIGHT + rows * PANEL_HEIGHT + 10, width);
        } finally {
            g.dispose();
        }
        ImageIO.write(image, "png", png.toFile());
    }

    private static JFreeChart panel(Panel p, String xLabel, String yLabel, Map<String, Paint> colours) {
        XYSeriesCollection data = new XYSeriesCollection();
        for (Line l : p.lines()) {
            XYSeries s = new XYSeries(l.name(), false, true);
            for (int i = 0; i < l.x().length; i++) {
                s.add(l.x()[i], l.y()[i]);
            }
            data.addSeries(s);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(p.title(), xLabel, yLabel, data,
                PlotOrientation.VERTICAL, false, false, false);
        chart.getTitle().setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        XYPlot plot = chart.getXYPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        ((NumberAxis) plot.getRangeAxis()).setAutoRangeIncludesZero(false);
        ((NumberAxis) plot.getDomainAxis()).setAutoRangeIncludesZero(false);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < p.lines().size(); i++) {
            renderer.setSeriesPaint(i, colours.get(p.lines().get(i).name()));
            renderer.setSeriesStroke(i, new BasicStroke(1.6f));
        }
        plot.setRenderer(renderer);
        return chart;
    }

    static int legendHeight(int entries, int width) {
        int perRow = legendPerRow(width);
        return 20 + (entries + perRow - 1) / perRow * LEGEND_ROW_HEIGHT;
    }

    private static int legendPerRow(int width) {
        return Math.max(1, (width - 40) / LEGEND_ENTRY_WIDTH);
    }

    private static void legend(Graphics2D g, Map<String, Paint> colours, int top, int width) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        int entry = LEGEND_ENTRY_WIDTH;
        int perRow = legendPerRow(width);
        int i = 0;
        for (Map.Entry<String, Paint> e : colours.entrySet()) {
            int x = 20 + (i % perRow) * entry;
            int y = top + (i / perRow) * LEGEND_ROW_HEIGHT;
            g.setPaint(e.getValue());
            g.setStroke(new BasicStroke(3f));
            g.drawLine(x, y + 8, x + 24, y + 8);
            g.setPaint(Color.BLACK);
            g.drawString(e.getKey(), x + 30, y + 13);
            i++;
        }
    }
}
