package org.balanceroute.tuner.internal;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.balanceroute.admin.PolicyAdmin;
import org.balanceroute.api.CompletionListener;
import org.balanceroute.api.PoolSnapshot;
import org.balanceroute.api.RequestView;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.policy.balance.BalancePolicy;
import org.balanceroute.policy.balance.BalanceProperties;
import org.balanceroute.policy.balance.BalanceSettings;
import org.balanceroute.router.RouterService;
import org.balanceroute.simulator.ParameterTuner;
import org.balanceroute.simulator.RobustChoice;
import org.balanceroute.simulator.SimulationConfig;
import org.balanceroute.simulator.SimulationResult;
import org.balanceroute.simulator.SteadyState;
import org.balanceroute.trace.TraceRequest;
import org.balanceroute.tuner.RecentRequests;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The self-tuner: keeps the rolling record of finished requests (a {@link CompletionListener}
 * service the router feeds on its dispatch thread), and on demand ({@link #start}) or every
 * {@code intervalMinutes} replays the last {@code windowMinutes} of it through the simulator's
 * {@link ParameterTuner} (the same core the proxy runs) on a low-priority thread of its own,
 * within {@code budgetSeconds}. The replay runs on the router's G and B (from its snapshot) and
 * the configured step model, each candidate on {@code replays} perturbed replays of the window
 * (its mean decides); the winner must beat the settings in force on the {@code quorum} of the
 * window's {@code parts} ({@link RobustChoice}). With {@code autoApply} the winner is applied through
 * {@link PolicyAdmin#change}, the path {@code PUT /admin/policy} takes (ConfigAdmin, answered
 * once in force), when its predicted gain is at least {@code margin} and it differs from what is
 * in force. Never on the dispatch thread: only {@link #onCompleted} runs there.
 */
@Component(service = {CompletionListener.class, TunerComponent.class}, configurationPid = TunerConfig.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = TunerConfig.class)
public final class TunerComponent implements CompletionListener {

    private static final Logger LOG = LoggerFactory.getLogger(TunerComponent.class);
    static final Duration APPLY_WAIT = Duration.ofSeconds(5);

    private final RouterService router;
    private final PolicyAdmin admin;
    private final ScheduledExecutorService thread;
    private volatile TunerSettings settings;
    private volatile RecentRequests record;
    private volatile boolean cancelled;
    private ScheduledFuture<?> schedule; // guarded by this
    private CompletableFuture<Map<String, Object>> running; // guarded by this
    private Map<String, Object> last; // guarded by this
    private int runs; // guarded by this

    /** @throws ConfigurationException if the configuration is invalid (the activation fails) */
    @Activate
    public TunerComponent(Map<String, Object> properties, @Reference(name = "router") RouterService router,
            @Reference(name = "policyAdmin") PolicyAdmin admin) {
        this.router = router;
        this.admin = admin;
        TunerSettings s = TunerSettings.read(ConfigProperties.of(TunerConfig.PID, properties));
        this.settings = s;
        this.record = new RecentRequests(s.maxRequests());
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "balanceroute-tuner");
            t.setDaemon(true);
            t.setPriority(Thread.MIN_PRIORITY);
            return t;
        });
        reschedule();
    }

    @Modified
    void modified(Map<String, Object> properties) {
        ConfigProperties.readUpdate(TunerConfig.PID, properties, TunerSettings::read,
                e -> LOG.error("tuner: configuration rejected: {}; keeping the previous one", e.getMessage()))
                .ifPresent(this::apply);
    }

    private void apply(TunerSettings next) {
        if (next.maxRequests() != settings.maxRequests()) {
            record = new RecentRequests(next.maxRequests()); // the record restarts
        }
        settings = next;
        reschedule();
    }

    @Deactivate
    void deactivate() {
        cancelled = true;
        thread.shutdownNow();
    }

    private synchronized void reschedule() {
        if (schedule != null) {
            schedule.cancel(false);
            schedule = null;
        }
        double minutes = settings.intervalMinutes();
        if (minutes > 0) {
            long millis = Math.max(1000, (long) (minutes * 60_000));
            schedule = thread.scheduleWithFixedDelay(() -> start("schedule"), millis, millis, TimeUnit.MILLISECONDS);
        }
    }

    /** On the dispatch thread: O(1), no allocation. */
    @Override
    public void onCompleted(RequestView request, int outputTokens) {
        record.onCompleted(request, outputTokens);
    }

    /** Finished requests recorded since the record (re)started. */
    public long recorded() {
        return record.recorded();
    }

    /**
     * Starts a search unless one runs.
     *
     * @return the search, running or just started; completes with its report
     */
    public CompletableFuture<Map<String, Object>> start(String reason) {
        return start(reason, false);
    }

    /**
     * @param apply apply the winner if its gain clears the margin, as with {@code autoApply}, for
     *     this search (an operator's explicit request: {@code POST /admin/tune?apply=true})
     */
    public synchronized CompletableFuture<Map<String, Object>> start(String reason, boolean apply) {
        if (running != null && !running.isDone()) {
            return running;
        }
        CompletableFuture<Map<String, Object>> f = new CompletableFuture<>();
        running = f;
        thread.execute(() -> { // the tuner's own low-priority thread, never the dispatch thread
            Map<String, Object> report;
            try {
                report = search(reason, apply);
            } catch (RuntimeException e) {
                LOG.error("tuner: the search failed", e);
                report = new LinkedHashMap<>();
                report.put("reason", reason);
                report.put("error", String.valueOf(e.getMessage()));
            }
            synchronized (TunerComponent.this) {
                last = report;
                runs++;
            }
            f.complete(report);
        });
        return f;
    }

    /** For GET /admin/tune: whether a search runs, the last report, the record and the settings. */
    public synchronized Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", running != null && !running.isDone() ? "running" : "idle");
        m.put("runs", runs);
        m.put("recorded", record.recorded());
        TunerSettings s = settings;
        m.put("windowMinutes", s.windowNanos() / 60e9);
        m.put("budgetSeconds", s.budgetMillis() / 1000.0);
        m.put("intervalMinutes", s.intervalMinutes());
        m.put("autoApply", s.autoApply());
        m.put("margin", s.margin());
        m.put("parts", s.choice().parts());
        m.put("quorum", s.choice().quorum());
        m.put("replays", s.replays());
        m.put("agreement", s.choice().agreement());
        m.put("last", last);
        return m;
    }

    private Map<String, Object> search(String reason, boolean applyAsked) {
        TunerSettings s = settings;
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("reason", reason);
        List<TraceRequest> traffic = record.window(s.windowNanos());
        report.put("requests", traffic.size());
        report.put("spanSeconds", traffic.isEmpty() ? 0 : traffic.get(traffic.size() - 1).arrivalSeconds());
        PoolSnapshot snap = router.snapshot();
        if (traffic.size() < 2 || snap.workers() == 0) {
            report.put("error", traffic.size() < 2 ? "fewer than two finished requests in the window"
                    : "the number of decode workers is not known yet");
            return report;
        }
        String active = router.activePolicy();
        boolean br = active.equals(BalancePolicy.BR0) || active.startsWith(BalancePolicy.BRH_PREFIX);
        BalanceSettings current = br ? BalanceProperties.fromMap(router.policyParameters(active))
                : BalanceSettings.defaults();
        String brh = active.equals(BalancePolicy.BRH_EXACT) ? BalancePolicy.BRH_EXACT
                : active.equals(BalancePolicy.BRH_SURVIVAL) ? BalancePolicy.BRH_SURVIVAL : s.brhPolicy();
        SimulationConfig replay = new SimulationConfig(snap.workers(), snap.capacity(), s.stepA(), s.stepB(), 0, 0, 0, 1);
        ParameterTuner.Report r = new ParameterTuner(replay, SteadyState.DEFAULT, ParameterTuner.CATALOG,
                System::currentTimeMillis, s.choice(), s.replays()).tune(traffic, active, current, brh, s.grid(),
                        s.budgetMillis(), () -> cancelled);
        report.put("workers", snap.workers());
        report.put("capacity", snap.capacity());
        report.put("current", score(r.current()));
        report.put("best", score(r.best()));
        report.put("predictedGain", r.predictedGain());
        report.put("parts", r.choice().parts());
        report.put("wins", r.wins());
        report.put("replays", r.replays());
        // the halves of the replays' rank correlation: below the gate, the settings in force stay
        report.put("agreement", Double.isNaN(r.agreement()) ? null : r.agreement());
        report.put("complete", r.complete());
        report.put("candidates", r.candidates());
        report.put("evaluated", r.ranked().size());
        report.put("elapsedMillis", r.elapsedMillis());
        report.put("ranked", r.ranked().stream().limit(10).map(TunerComponent::score).toList());
        boolean differs = !r.best().candidate().equals(r.current().candidate());
        boolean applying = s.autoApply() || applyAsked;
        if (applying && differs && r.predictedGain() >= s.margin()) {
            report.put("applied", apply(r.best().candidate(), report));
        } else {
            report.put("applied", false);
            report.put("applyMessage", !applying ? "autoApply is off"
                    : r.gated()
                            ? String.format(Locale.ROOT, "the replays do not agree on the candidates' order (agreement "
                                    + "%.2f below %.2f): their differences are noise, the settings in force stay",
                                    r.agreement(), r.choice().agreement())
                    : !differs ? "the settings in force are the best"
                    : String.format(Locale.ROOT, "predicted gain %.3f below the margin %.3f", r.predictedGain(),
                            s.margin()));
        }
        LOG.info("tuner: {} requests, best {} (steady imbalance {} vs {} now, gain {}), applied {}", traffic.size(),
                r.best().candidate().label(), Math.round(r.best().imbalance()),
                Math.round(r.current().imbalance()), String.format(Locale.ROOT, "%.3f",
                        r.predictedGain()), report.get("applied"));
        return report;
    }

    private boolean apply(ParameterTuner.Candidate best, Map<String, Object> report) {
        Map<String, Object> params = new LinkedHashMap<>();
        if (!best.policy().equals(BalancePolicy.BR0)) {
            params.put(BalanceProperties.HORIZON, best.settings().horizon());
            params.put(BalanceProperties.BETA, best.settings().beta());
            params.put(BalanceProperties.GAMMA, best.settings().gamma());
        }
        try {
            PolicyAdmin.ChangeResult result = admin.change(best.policy(), params, APPLY_WAIT);
            report.put("applyMessage", result.message());
            return true;
        } catch (PolicyAdmin.InvalidChangeException | IllegalStateException e) {
            report.put("applyMessage", "not applied: " + e.getMessage());
            return false;
        }
    }

    private static Map<String, Object> score(ParameterTuner.Score s) {
        Map<String, Object> m = new LinkedHashMap<>();
        ParameterTuner.Candidate c = s.candidate();
        SimulationResult r = s.result();
        m.put("label", c.label());
        m.put("policy", c.policy());
        m.put("horizon", c.settings().horizon());
        m.put("beta", c.settings().beta());
        m.put("gamma", c.settings().gamma());
        m.put("steadyAvgImbalance", r.steadyAvgImbalance());
        m.put("meanImbalance", s.imbalance());
        m.put("steadyThroughputTokPerS", r.steadyThroughputTokPerS());
        m.put("steadyTpotP95Ms", r.steadyTpotP95Ms());
        return m;
    }
}
