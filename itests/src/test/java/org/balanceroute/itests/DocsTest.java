package org.balanceroute.itests;

import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.Test;

/**
 * The README stays a front page (at most 22 KB) and no relative link in it or in docs/*.md points
 * to a file that is not there, or to an anchor the file does not have. A plain unit test: it reads
 * files, nothing is started.
 */
public class DocsTest {

    static final int README_LIMIT = 22 * 1024;
    /** {@code [text](target)} and {@code ![alt](target)}; the target ends at a space (a title) or ')'. */
    static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)[^)]*\\)");
    static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");
    static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    /** The explicit anchors the docs set where no heading is ({@code <a id="decode-instances"></a>}). */
    static final Pattern ID = Pattern.compile("<a id=\"([^\"]+)\"");

    static Path root() {
        // the build runs this module's tests with itests/ as the working directory
        return Path.of(System.getProperty("balanceroute.root", "..")).toAbsolutePath().normalize();
    }

    @Test
    public void theReadmeIsAFrontPage() throws IOException {
        long size = Files.size(root().resolve("README.md"));
        assertTrue("README.md is " + size + " bytes; a front page stays at most " + README_LIMIT
                + " (move the detail to docs/ and link it)", size <= README_LIMIT);
    }

    @Test
    public void relativeLinksResolve() throws IOException {
        List<Path> files = new ArrayList<>(List.of(root().resolve("README.md")));
        try (Stream<Path> docs = Files.list(root().resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        List<String> broken = new ArrayList<>();
        Map<Path, Set<String>> anchors = new HashMap<>();
        for (Path file : files) {
            boolean fenced = false;
            List<String> lines = Files.readAllLines(file);
            for (int n = 0; n < lines.size(); n++) {
                String line = lines.get(n);
                if (line.startsWith("```")) {
                    fenced = !fenced;
                }
                if (fenced) {
                    continue;
                }
                Matcher m = LINK.matcher(INLINE_CODE.matcher(line).replaceAll(""));
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                        continue; // a URL
                    }
                    int hash = target.indexOf('#');
                    String path = hash < 0 ? target : target.substring(0, hash);
                    Path linked = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
                    if (!Files.exists(linked)) {
                        broken.add(root().relativize(file) + ":" + (n + 1) + ": " + target);
                    } else if (hash >= 0 && linked.toString().endsWith(".md")
                            && !anchors.computeIfAbsent(linked, DocsTest::anchors).contains(target.substring(hash + 1))) {
                        broken.add(root().relativize(file) + ":" + (n + 1) + ": " + target + " (no such anchor)");
                    }
                }
            }
        }
        assertTrue("links to files or anchors that do not exist:\n" + String.join("\n", broken), broken.isEmpty());
    }

    /**
     * The anchors a Markdown file has as GitHub renders it: each heading's slug (lower case, what is
     * not a letter, digit, '-', '_' or space dropped, spaces as '-'; a repeated one gets -1, -2, ...)
     * and each explicit {@code <a id>}.
     */
    static Set<String> anchors(Path file) {
        try {
            Set<String> out = new HashSet<>();
            Map<String, Integer> seen = new HashMap<>();
            boolean fenced = false;
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith("```")) {
                    fenced = !fenced;
                }
                Matcher h = HEADING.matcher(line);
                if (!fenced && h.matches()) {
                    String slug = h.group(1).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
                    int n = seen.merge(slug, 1, Integer::sum) - 1;
                    out.add(n == 0 ? slug : slug + "-" + n);
                }
                Matcher id = ID.matcher(line);
                while (id.find()) {
                    out.add(id.group(1));
                }
            }
            return out;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
