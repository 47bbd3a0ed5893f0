package org.balanceroute.predictor.survival.internal;

import java.util.Map;
import org.balanceroute.api.SwappablePredictor;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.predictor.survival.SurvivalPredictor;
import org.balanceroute.predictor.survival.SurvivalSettings;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers the {@link SurvivalPredictor} as a {@link TerminationPredictor} service with
 * {@code balanceroute.predictor=survival}, configured by PID {@value #PID}. The router teaches it
 * every completion whatever policy is active; {@code brh-survival} asks it.
 *
 * <p>Config-or-error: an invalid update is logged (PID, property and range) and the settings in
 * force are kept; an invalid configuration at activation fails the activation. A valid change of {@code minSamples} builds a new predictor, so what it has
 * learned restarts from nothing.
 *
 * <p>Threading: as {@link SwappablePredictor}: called only from the router's single dispatch
 * thread; a reconfiguration publishes the new predictor through a volatile field.
 */
@Component(name = SurvivalPredictorComponent.PID, service = TerminationPredictor.class,
        property = TerminationPredictor.NAME_PROPERTY + "=" + SurvivalPredictor.NAME)
@Designate(ocd = SurvivalPredictorComponent.Config.class)
public final class SurvivalPredictorComponent extends SwappablePredictor<SurvivalSettings> {

    static final String PID = "org.balanceroute.predictor.survival";

    private static final Logger LOG = LoggerFactory.getLogger(SurvivalPredictorComponent.class);

    @ObjectClassDefinition(name = "BalanceRoute predictor: survival",
            description = "Termination predictor from the online empirical distribution of output "
                    + "lengths (used by brh-survival). Changing a value restarts its learning.")
    @interface Config {

        @AttributeDefinition(name = "Minimum samples", min = "" + SurvivalSettings.MIN_MIN_SAMPLES,
                description = "Finished requests the distribution must hold before the predictor "
                        + "answers anything but 'survives past the horizon'. Integer >= "
                        + SurvivalSettings.MIN_MIN_SAMPLES + "; default " + SurvivalSettings.DEFAULT_MIN_SAMPLES + ".")
        long minSamples() default SurvivalSettings.DEFAULT_MIN_SAMPLES;

        @AttributeDefinition(name = "Quantile", min = "" + SurvivalSettings.MIN_QUANTILE,
                max = "" + SurvivalSettings.MAX_QUANTILE,
                description = "The predicted end of a request: " + SurvivalSettings.QUANTILE_DESCRIPTION)
        double quantile() default SurvivalSettings.DEFAULT_QUANTILE;

        @AttributeDefinition(name = "Window", min = "" + SurvivalSettings.MIN_WINDOW,
                max = "" + SurvivalSettings.MAX_WINDOW,
                description = "Sliding window: " + SurvivalSettings.WINDOW_DESCRIPTION)
        int window() default SurvivalSettings.DEFAULT_WINDOW;
    }

    /** @throws ConfigurationException if the configuration is invalid (the activation fails) */
    @Activate
    public SurvivalPredictorComponent(Map<String, Object> properties) {
        super(SurvivalPredictor.NAME, SurvivalSettings.read(ConfigProperties.of(PID, properties)), SurvivalPredictor::new);
    }

    /** A valid configuration applies (learning restarts if it changed); an invalid one is logged and the settings stay. */
    @Modified
    void modified(Map<String, Object> properties) {
        ConfigProperties.readUpdate(PID, properties, SurvivalSettings::read,
                e -> LOG.error("predictor {}: configuration rejected: {}; keeping {}", SurvivalPredictor.NAME,
                        e.getMessage(), settings()))
                .ifPresent(this::apply);
    }

    private void apply(SurvivalSettings next) {
        if (update(next)) {
            LOG.info("predictor {}: settings now {}; learning restarts", SurvivalPredictor.NAME, next);
        }
    }
}
