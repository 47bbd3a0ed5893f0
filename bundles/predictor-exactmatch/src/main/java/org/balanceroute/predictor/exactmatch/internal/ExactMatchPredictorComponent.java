package org.balanceroute.predictor.exactmatch.internal;

import java.util.Map;
import org.balanceroute.api.SwappablePredictor;
import org.balanceroute.api.TerminationPredictor;
import org.balanceroute.api.config.ConfigProperties;
import org.balanceroute.api.config.ConfigurationException;
import org.balanceroute.predictor.exactmatch.ExactMatchPredictor;
import org.balanceroute.predictor.exactmatch.ExactMatchSettings;
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
 * Registers the {@link ExactMatchPredictor} as a {@link TerminationPredictor} service with
 * {@code balanceroute.predictor=exact-match}, configured by PID {@value #PID}. The router teaches
 * it every completion whatever policy is active; {@code brh-exact} asks it.
 *
 * <p>Config-or-error: an invalid update is logged (PID, property and range) and the settings in
 * force are kept; an invalid configuration at activation fails the activation. A valid change builds a new predictor, so what it has learned (per-prompt
 * histories and the survival fallback) restarts from nothing.
 *
 * <p>Threading: as {@link SwappablePredictor}: called only from the router's single dispatch
 * thread; a reconfiguration publishes the new predictor through a volatile field.
 */
@Component(name = ExactMatchPredictorComponent.PID, service = TerminationPredictor.class,
        property = TerminationPredictor.NAME_PROPERTY + "=" + ExactMatchPredictor.NAME)
@Designate(ocd = ExactMatchPredictorComponent.Config.class)
public final class ExactMatchPredictorComponent extends SwappablePredictor<ExactMatchPredictorComponent.Settings> {

    static final String PID = "org.balanceroute.predictor.exactmatch";

    private static final Logger LOG = LoggerFactory.getLogger(ExactMatchPredictorComponent.class);

    @ObjectClassDefinition(name = "BalanceRoute predictor: exact-match",
            description = "Termination predictor over the output lengths seen for the same prompt, "
                    + "falling back to the survival predictor (used by brh-exact). Changing a value "
                    + "restarts its learning.")
    @interface Config {

        @AttributeDefinition(name = "Minimum count", min = "" + ExactMatchSettings.MIN_MIN_COUNT,
                max = "" + ExactMatchSettings.MAX_LENGTHS_PER_PROMPT,
                description = "Lengths a prompt must have recorded before its own history is used "
                        + "instead of the survival fallback. Integer in [" + ExactMatchSettings.MIN_MIN_COUNT
                        + ", maxLengthsPerPrompt]; default " + ExactMatchSettings.DEFAULT_MIN_COUNT + ".")
        int minCount() default ExactMatchSettings.DEFAULT_MIN_COUNT;

        @AttributeDefinition(name = "Maximum prompts", min = "" + ExactMatchSettings.MIN_MAX_PROMPTS,
                max = "" + ExactMatchSettings.MAX_PROMPTS,
                description = "Prompts whose history is kept; once reached, new prompts are not added. "
                        + "Integer in [" + ExactMatchSettings.MIN_MAX_PROMPTS + ", " + ExactMatchSettings.MAX_PROMPTS
                        + "]; default " + ExactMatchSettings.DEFAULT_MAX_PROMPTS + ".")
        int maxPrompts() default ExactMatchSettings.DEFAULT_MAX_PROMPTS;

        @AttributeDefinition(name = "Maximum lengths per prompt", min = "" + ExactMatchSettings.MIN_MAX_LENGTHS_PER_PROMPT,
                max = "" + ExactMatchSettings.MAX_LENGTHS_PER_PROMPT,
                description = "Latest output lengths kept per prompt (older ones are overwritten). "
                        + "Integer in [" + ExactMatchSettings.MIN_MAX_LENGTHS_PER_PROMPT + ", "
                        + ExactMatchSettings.MAX_LENGTHS_PER_PROMPT + "], at least minCount; default "
                        + ExactMatchSettings.DEFAULT_MAX_LENGTHS_PER_PROMPT + ".")
        int maxLengthsPerPrompt() default ExactMatchSettings.DEFAULT_MAX_LENGTHS_PER_PROMPT;

        @AttributeDefinition(name = "Fallback minimum samples", min = "" + SurvivalSettings.MIN_MIN_SAMPLES,
                description = "minSamples of the embedded survival fallback: finished requests it must "
                        + "hold before it answers anything but 'survives'. Integer >= "
                        + SurvivalSettings.MIN_MIN_SAMPLES + "; default " + SurvivalSettings.DEFAULT_MIN_SAMPLES + ".")
        long minSamples() default SurvivalSettings.DEFAULT_MIN_SAMPLES;

        @AttributeDefinition(name = "Quantile", min = "" + SurvivalSettings.MIN_QUANTILE,
                max = "" + SurvivalSettings.MAX_QUANTILE,
                description = "The predicted end of a request, from its prompt's history or the fallback: " + SurvivalSettings.QUANTILE_DESCRIPTION)
        double quantile() default SurvivalSettings.DEFAULT_QUANTILE;

        @AttributeDefinition(name = "Window", min = "" + SurvivalSettings.MIN_WINDOW,
                max = "" + SurvivalSettings.MAX_WINDOW,
                description = "The survival fallback's window: " + SurvivalSettings.WINDOW_DESCRIPTION)
        int window() default SurvivalSettings.DEFAULT_WINDOW;
    }

    /** Both settings, as one value: a change to either builds a new predictor. */
    record Settings(ExactMatchSettings exact, SurvivalSettings survival) {
    }

    /** @throws ConfigurationException if the configuration is invalid (the activation fails) */
    @Activate
    public ExactMatchPredictorComponent(Map<String, Object> properties) {
        super(ExactMatchPredictor.NAME, read(ConfigProperties.of(PID, properties)),
                s -> new ExactMatchPredictor(s.exact(), s.survival()));
    }

    /** A valid configuration applies (learning restarts if it changed); an invalid one is logged and the settings stay. */
    @Modified
    void modified(Map<String, Object> properties) {
        ConfigProperties.readUpdate(PID, properties, ExactMatchPredictorComponent::read,
                e -> LOG.error("predictor {}: configuration rejected: {}; keeping {}", ExactMatchPredictor.NAME,
                        e.getMessage(), settings()))
                .ifPresent(this::apply);
    }

    private void apply(Settings next) {
        if (update(next)) {
            LOG.info("predictor {}: settings now {}; learning restarts", ExactMatchPredictor.NAME, next);
        }
    }

    private static Settings read(ConfigProperties c) {
        return new Settings(ExactMatchSettings.read(c), SurvivalSettings.read(c));
    }

    /** The exact-match settings in force. */
    ExactMatchSettings exactSettings() {
        return settings().exact();
    }

    /** The fallback's settings in force. */
    SurvivalSettings survivalSettings() {
        return settings().survival();
    }
}
