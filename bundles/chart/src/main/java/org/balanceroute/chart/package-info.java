/**
 * The per-worker KV load chart (the paper's Figure 3) as a PNG: {@link org.balanceroute.chart.LoadChart}
 * draws any {@link org.balanceroute.chart.LoadSeries}, the simulator's recorded steps and the
 * simulated engine's measured ones alike; {@link org.balanceroute.chart.PanelChart} draws a grid of
 * small line charts, e.g. the simulator's load sweep.
 */
@Export
@Version("0.2.0")
package org.balanceroute.chart;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
