package org.balanceroute.console.internal;

/**
 * The page's HTML, inside the console's frame: the sections the script fills (res/balanceroute.js)
 * and the values it needs as data attributes (the plugin root for its requests, the CSRF token).
 * Element ids are the contract with the script and the browser test.
 */
final class Page {

    private Page() {
    }

    static String html(String pluginRoot, String csrfToken) {
        String root = escape(pluginRoot);
        return """
                <div id="br-console" data-root="%1$s" data-csrf="%2$s">
                <div id="br-warning" class="br-warning" hidden></div>
                <div id="br-status" class="br-status">Loading...</div>
                <h2 class="br-h">Fleet: decode instances and their workers' KV load</h2>
                <div id="br-fleet-message" class="br-note" hidden></div>
                <div id="br-fleet-result" class="br-result" data-outcome="none" hidden></div>
                <div id="br-fleet"></div>
                <h2 class="br-h">Routing policy</h2>
                <p>Active in the pool chosen: <strong id="br-active">?</strong> (a policy's parameters are shared by every pool)</p>
                <div id="br-policy-message" class="br-note" hidden></div>
                <form id="br-policy-form" class="br-form" autocomplete="off">
                <label>Pool <select id="br-policy-pool" name="pool"></select></label>
                <label>Policy <select id="br-policy" name="policy"></select></label>
                <table id="br-params" class="nicetable br-table">
                <thead><tr><th>parameter</th><th>value</th><th>in force</th><th>default</th><th>range</th></tr></thead>
                <tbody></tbody>
                </table>
                <button type="submit" id="br-apply" class="ui-button">Apply</button>
                </form>
                <div id="br-result" class="br-result" data-outcome="none" hidden></div>
                <div id="br-cluster" hidden>
                <h2 class="br-h">Cluster of proxies</h2>
                <p id="br-cluster-summary"></p>
                <table id="br-members" class="nicetable br-table">
                <thead><tr><th>member</th><th>address</th><th>role</th><th>KV load (tokens)</th><th>share</th><th>running</th><th>queued</th><th>pooled</th></tr></thead>
                <tbody></tbody>
                </table>
                </div>
                <noscript>This page needs JavaScript.</noscript>
                </div>
                <script src="%1$s/res/uplot/uPlot.iife.min.js"></script>
                <script src="%1$s/res/balanceroute.js"></script>
                """.formatted(root, escape(csrfToken));
    }

    /** HTML text and attribute escaping. */
    static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
