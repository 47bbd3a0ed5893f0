package org.balanceroute.itests;

import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.Test;

/**
 * The README stays a front page (under 25 KB) and no relative link in it or in docs/*.md points
 * to a file that is not there. A plain unit test: it reads files, nothing is started.
 */
public class DocsTest {

    static final int README_LIMIT = 25 * 1024;
    /** {@code [text](target)} and {@code ![alt](target)}; the target ends at a space (a title) or ')'. */
    static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)[^)]*\\)");
    static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");

    static Path root() {
        // the build runs this module's tests with itests/ as the working directory
        return Path.of(System.getProperty("balanceroute.root", "..")).toAbsolutePath().normalize();
    }

    @Test
    public void theReadmeIsAFrontPage() throws IOException {
        long size = Files.size(root().resolve("README.md"));
        assertTrue("README.md is " + size + " bytes; a front page stays under " + README_LIMIT
                + " (move the detail to docs/ and link it)", size < README_LIMIT);
    }

    @Test
    public void relativeLinksResolve() throws IOException {
        List<Path> files = new ArrayList<>(List.of(root().resolve("README.md")));
        try (Stream<Path> docs = Files.list(root().resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        List<String> broken = new ArrayList<>();
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
                    int hash = target.indexOf('#');
                    String path = hash < 0 ? target : target.substring(0, hash);
                    if (path.isEmpty() || target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                        continue; // an anchor in the same file, or a URL
                    }
                    if (!Files.exists(file.getParent().resolve(path))) {
                        broken.add(root().relativize(file) + ":" + (n + 1) + ": " + target);
                    }
                }
            }
        }
        assertTrue("links to files that do not exist:\n" + String.join("\n", broken), broken.isEmpty());
    }
}
