package org.balanceroute.simulator;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.balanceroute.api.PoolView;
import org.balanceroute.chart.LoadSeries;

/**
 * Records per-step per-worker KV loads: every step to a CSV file
 * ({@code step,time_s,worker_0,...}), and a bounded sample for charting (at most
 * {@link #MAX_SAMPLES} steps: when full, every other sample is dropped and the stride doubles,
 * so memory stays bounded however long the run), which {@link org.balanceroute.chart.LoadChart}
 * draws.
 */
public final class SeriesRecorder implements StepObserver, LoadSeries, AutoCloseable {

    static final int MAX_SAMPLES = 4096;

    private final BufferedWriter csv;
    private final int workers;
    private final long[] sampleStep = new long[MAX_SAMPLES];
    private final long[][] sampleLoad;
    private int samples;
    private long stride = 1;

    public SeriesRecorder(Path csvFile, int workers) throws IOException {
        this.workers = workers;
        this.sampleLoad = new long[MAX_SAMPLES][workers];
        this.csv = Files.newBufferedWriter(csvFile);
        StringBuilder header = new StringBuilder("step,time_s");
        for (int g = 0; g < workers; g++) {
            header.append(",worker_").append(g);
        }
        csv.write(header.append('\n').toString());
    }

    @Override
    public void onStep(long step, double timeS, PoolView view) {
        try {
            csv.write(Long.toString(step));
            csv.write(',');
            csv.write(Double.toString(Math.round(timeS * 1e6) / 1e6));
            for (int g = 0; g < workers; g++) {
                csv.write(',');
                csv.write(Long.toString(view.load(g)));
            }
            csv.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (step % stride != 0) {
            return;
        }
        if (samples == MAX_SAMPLES) {
            for (int i = 0; i < MAX_SAMPLES / 2; i++) {
                sampleStep[i] = sampleStep[2 * i];
                System.arraycopy(sampleLoad[2 * i], 0, sampleLoad[i], 0, workers);
            }
            samples = MAX_SAMPLES / 2;
            stride *= 2;
            if (step % stride != 0) {
                return;
            }
        }
        sampleStep[samples] = step;
        for (int g = 0; g < workers; g++) {
            sampleLoad[samples][g] = view.load(g);
        }
        samples++;
    }

    @Override
    public int samples() {
        return samples;
    }

    @Override
    public long step(int i) {
        return sampleStep[i];
    }

    @Override
    public long load(int i, int worker) {
        return sampleLoad[i][worker];
    }

    @Override
    public int workers() {
        return workers;
    }

    @Override
    public void close() throws IOException {
        csv.close();
    }
}
