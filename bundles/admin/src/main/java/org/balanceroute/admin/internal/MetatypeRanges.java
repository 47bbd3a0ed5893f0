package org.balanceroute.admin.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.osgi.framework.Bundle;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * The {@code min} and {@code max} of a PID's attributes, read from the bundle's metatype
 * documents ({@code OSGI-INF/metatype/*.xml}, the same files the MetaType service reads). The
 * MetaType Java API ({@code AttributeDefinition}, 1.4) has no getters for them, only
 * {@code validate}; the admin API shows them and names them in its errors, so it reads them
 * where they are written. A PID described otherwise (a {@code MetaTypeProvider} service) has no
 * min or max here, and its values are still checked by the MetaType service's validation.
 */
final class MetatypeRanges {

    /** An attribute's bounds as the document writes them, either may be null. */
    record Range(String min, String max) {
    }

    static final String DIRECTORY = "OSGI-INF/metatype";

    private MetatypeRanges() {
    }

    /** The bounds by attribute id of the OCD the bundle designates for {@code pid}; empty if none. */
    static Map<String, Range> of(Bundle bundle, String pid) {
        Enumeration<URL> documents = bundle.findEntries(DIRECTORY, "*.xml", false);
        if (documents == null) {
            return Map.of();
        }
        for (URL url : Collections.list(documents)) {
            Map<String, Range> ranges = read(url, pid);
            if (ranges != null) {
                return ranges;
            }
        }
        return Map.of();
    }

    /** The bounds of {@code pid}'s OCD in one document, or null if it does not designate the PID. */
    static Map<String, Range> read(URL document, String pid) {
        Document doc;
        try (InputStream in = document.openStream()) {
            doc = parser().parse(in);
        } catch (IOException | SAXException | ParserConfigurationException e) {
            return null; // the MetaType service reports a broken document itself
        }
        String ocdRef = null;
        NodeList designates = doc.getElementsByTagNameNS("*", "Designate");
        for (int i = 0; i < designates.getLength() && ocdRef == null; i++) {
            Element d = (Element) designates.item(i);
            if (pid.equals(d.getAttribute("pid")) || pid.equals(d.getAttribute("factoryPid"))) {
                NodeList objects = d.getElementsByTagNameNS("*", "Object");
                if (objects.getLength() > 0) {
                    ocdRef = ((Element) objects.item(0)).getAttribute("ocdref");
                }
            }
        }
        if (ocdRef == null) {
            return null;
        }
        NodeList ocds = doc.getElementsByTagNameNS("*", "OCD");
        for (int i = 0; i < ocds.getLength(); i++) {
            Element ocd = (Element) ocds.item(i);
            if (ocdRef.equals(ocd.getAttribute("id"))) {
                Map<String, Range> ranges = new HashMap<>();
                NodeList ads = ocd.getElementsByTagNameNS("*", "AD");
                for (int j = 0; j < ads.getLength(); j++) {
                    Element ad = (Element) ads.item(j);
                    ranges.put(ad.getAttribute("id"), new Range(attribute(ad, "min"), attribute(ad, "max")));
                }
                return Map.copyOf(ranges);
            }
        }
        return null;
    }

    private static String attribute(Element e, String name) {
        return e.hasAttribute(name) ? e.getAttribute(name) : null;
    }

    private static DocumentBuilder parser() throws ParserConfigurationException {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
        return f.newDocumentBuilder();
    }
}
