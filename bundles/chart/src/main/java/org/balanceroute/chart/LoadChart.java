package org.balanceroute.chart;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** Per-worker KV load over decode steps, one line per worker (the paper's Figure 3), as a 1200x600 PNG. */
public final class LoadChart {

    private LoadChart() {
    }

    /** Draws {@code series} into {@code png} (replaced if it exists), headless. */
    public static void write(Path png, String title, LoadSeries series) throws IOException {
        System.setProperty("java.awt.headless", "true");
        XYSeriesCollection data = new XYSeriesCollection();
        for (int g = 0; g < series.workers(); g++) {
            XYSeries s = new XYSeries("worker " + g, false, true);
            for (int i = 0; i < series.samples(); i++) {
                s.add(series.step(i), series.load(i, g));
            }
            data.addSeries(s);
        }
        JFreeChart chart = ChartFactory.createXYLineChart(title, "decode step", "KV load (tokens)", data,
                PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
        for (int g = 0; g < series.workers(); g++) {
            renderer.setSeriesStroke(g, new BasicStroke(1.0f));
        }
        plot.setRenderer(renderer);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, 1200, 600);
    }
}
