/*
 * The BalanceRoute console page: polls state.json about once a second (only the samples after the
 * last one it has), draws every decode worker's KV load with uPlot (one line per worker), the
 * max - min imbalance and the prompt pool depth beneath, the per-worker table, the policies with a
 * form generated from their metatype schema, and the cluster of proxies. Changes are POSTs with
 * the CSRF token the server hands out (header X-BalanceRoute-CSRF).
 */
(function () {
  'use strict';
  var page = document.getElementById('br-console');
  if (!page || typeof uPlot === 'undefined') {
    return;
  }
  // absolute, from the origin alone: a page opened as http://user:password@host/... has a document
  // URL with credentials, against which fetch() refuses to resolve a relative URL
  var root = location.protocol + '//' + location.host + page.getAttribute('data-root');
  var POLL_MILLIS = 1000;
  var st = {
    csrf: page.getAttribute('data-csrf'),
    seq: 0, capacity: 600, workers: -1,
    xs: [], loads: [], imbalance: [], pool: [],
    loadChart: null, balanceChart: null,
    policies: null, listKey: '', formPolicy: null, polls: 0
  };
  window.balanceroute = st; // for the browser test and the curious operator

  function $(id) { return document.getElementById(id); }
  function text(el, t) { el.textContent = t; return el; }
  function cell(tr, t) { var td = document.createElement('td'); text(td, t); tr.appendChild(td); return td; }
  function fmt(n) { return n == null ? '' : Number(n).toLocaleString('en-US'); }
  function color(i, n) { return 'hsl(' + Math.round(330 * i / Math.max(n, 1)) + ', 70%, 42%)'; }
  function width(el) { return Math.max(480, (el.clientWidth || page.clientWidth || 960) - 16); }

  // ------------------------------------------------------------ charts

  function buildCharts(g) {
    if (st.loadChart) { st.loadChart.destroy(); }
    if (st.balanceChart) { st.balanceChart.destroy(); }
    var loadDiv = $('br-load-chart'), balanceDiv = $('br-balance-chart');
    var series = [{ label: 'time' }];
    for (var i = 0; i < g; i++) {
      series.push({ label: 'worker ' + i, stroke: color(i, g), width: 1.5, points: { show: false },
        value: function (u, v) { return fmt(v); } });
    }
    var data = [st.xs].concat(st.loads);
    st.loadChart = new uPlot({
      width: width(loadDiv), height: 300, series: series,
      scales: { x: { time: true } },
      axes: [{}, { label: 'KV tokens', size: 80, values: function (u, vals) { return vals.map(fmt); } }]
    }, data, loadDiv);
    st.balanceChart = new uPlot({
      width: width(balanceDiv), height: 170,
      series: [{ label: 'time' },
        { label: 'imbalance (max - min)', stroke: '#c0392b', width: 1.5, scale: 'tokens', points: { show: false },
          value: function (u, v) { return fmt(v); } },
        { label: 'pool depth', stroke: '#1f4e79', width: 1.5, scale: 'requests', points: { show: false } }],
      scales: { x: { time: true } },
      axes: [{}, { scale: 'tokens', label: 'KV tokens', size: 80, values: function (u, vals) { return vals.map(fmt); } },
        { scale: 'requests', side: 1, label: 'requests', grid: { show: false } }]
    }, [st.xs, st.imbalance, st.pool], balanceDiv);
  }

  function reset(g) {
    st.workers = g; st.xs = []; st.imbalance = []; st.pool = []; st.loads = [];
    for (var i = 0; i < g; i++) { st.loads.push([]); }
    buildCharts(g);
  }

  function ingest(h) {
    if (h.seq < st.seq) { // the server restarted: start again
      st.seq = 0; reset(st.workers); return;
    }
    st.capacity = h.capacity;
    h.samples.forEach(function (s) {
      if (s.loads.length !== st.workers) { reset(s.loads.length); }
      st.xs.push(s.t / 1000);
      for (var g = 0; g < s.loads.length; g++) { st.loads[g].push(s.loads[g]); }
      st.imbalance.push(s.imbalance);
      st.pool.push(s.poolDepth);
    });
    var extra = st.xs.length - st.capacity;
    if (extra > 0) {
      st.xs.splice(0, extra); st.imbalance.splice(0, extra); st.pool.splice(0, extra);
      st.loads.forEach(function (l) { l.splice(0, extra); });
    }
    st.seq = h.seq;
    if (st.loadChart && h.samples.length > 0) {
      st.loadChart.setData([st.xs].concat(st.loads));
      st.balanceChart.setData([st.xs, st.imbalance, st.pool]);
    }
  }

  function workersTable(latest) {
    var body = $('br-workers').tBodies[0];
    body.innerHTML = '';
    if (!latest) { return; }
    latest.workers.forEach(function (w) {
      var tr = document.createElement('tr');
      cell(tr, 'worker ' + w.worker).style.color = color(w.worker, latest.workers.length);
      cell(tr, fmt(w.load)); cell(tr, fmt(w.running)); cell(tr, fmt(w.queued));
      var a = cell(tr, w.available ? 'yes' : 'no (health check failing)');
      if (!w.available) { a.className = 'br-down'; }
      body.appendChild(tr);
    });
  }

  // ------------------------------------------------------------ policies

  function rangeText(p) {
    if (p.options && p.options.length) { return p.options.map(function (o) { return o.label; }).join(', '); }
    // a metatype bound of Double.MIN_VALUE is how an open "> 0" is written
    var open = p.min != null && Number(p.min) === Number.MIN_VALUE;
    if (p.min != null && p.max != null) { return (open ? '(0' : '[' + p.min) + ', ' + p.max + ']'; }
    if (p.min != null) { return open ? '> 0' : '>= ' + p.min; }
    if (p.max != null) { return '<= ' + p.max; }
    return '';
  }

  function valueText(v) { return v == null ? '' : String(v); }

  function selectedPolicy() {
    var name = $('br-policy').value;
    var list = st.policies ? st.policies.list : [];
    for (var i = 0; i < list.length; i++) { if (list[i].name === name) { return list[i]; } }
    return null;
  }

  function buildForm() {
    var p = selectedPolicy();
    var body = $('br-params').tBodies[0];
    body.innerHTML = '';
    st.formPolicy = p ? p.name : null;
    if (!p) { return; }
    if (!p.parameters.length) {
      var tr = document.createElement('tr');
      var td = cell(tr, p.name + ' has no tunables');
      td.colSpan = 5;
      body.appendChild(tr);
      return;
    }
    p.parameters.forEach(function (d) {
      var tr = document.createElement('tr');
      var label = cell(tr, d.name && d.name !== d.id ? d.name + ' (' + d.id + ')' : d.id);
      label.title = d.description || '';
      var td = document.createElement('td');
      var inForce = p.values[d.id] != null ? p.values[d.id] : d['default'];
      var input;
      if (d.options && d.options.length) {
        input = document.createElement('select');
        d.options.forEach(function (o) {
          var opt = document.createElement('option');
          opt.value = o.value; text(opt, o.label);
          input.appendChild(opt);
        });
        input.value = valueText(inForce);
      } else if (d.type === 'boolean') {
        input = document.createElement('input');
        input.type = 'checkbox';
        input.checked = inForce === true || inForce === 'true';
      } else {
        input = document.createElement('input');
        input.type = 'text';
        input.value = valueText(inForce);
      }
      input.id = 'br-param-' + d.id;
      input.name = d.id;
      input.setAttribute('data-type', d.type);
      input.title = d.description || '';
      td.appendChild(input);
      tr.appendChild(td);
      cell(tr, valueText(inForce)).id = 'br-inforce-' + d.id;
      cell(tr, valueText(d['default']));
      cell(tr, rangeText(d));
      body.appendChild(tr);
    });
  }

  function policies(ps) {
    st.policies = ps;
    text($('br-active'), ps.active);
    var select = $('br-policy');
    var key = ps.list.map(function (p) { return p.name; }).join(',');
    if (key !== st.listKey) {
      var keep = select.value || ps.active;
      select.innerHTML = '';
      ps.list.forEach(function (p) {
        var opt = document.createElement('option');
        opt.value = p.name; text(opt, p.name + (p.active ? ' (active)' : ''));
        select.appendChild(opt);
      });
      select.value = keep;
      if (!select.value) { select.value = ps.active; }
      st.listKey = key;
      st.formPolicy = null;
    } else {
      for (var i = 0; i < select.options.length; i++) {
        var p = ps.list[i];
        text(select.options[i], p.name + (p.active ? ' (active)' : ''));
      }
    }
    var msg = $('br-policy-message');
    msg.hidden = ps.manageable;
    text(msg, ps.message || '');
    select.disabled = !ps.manageable;
    $('br-apply').disabled = !ps.manageable || st.busy;
    if (st.formPolicy !== select.value) {
      buildForm();
    } else {
      var p0 = selectedPolicy();
      if (p0) {
        p0.parameters.forEach(function (d) {
          var c = $('br-inforce-' + d.id);
          if (c) { text(c, valueText(p0.values[d.id] != null ? p0.values[d.id] : d['default'])); }
        });
      }
    }
  }

  function formValue(input) {
    var type = input.getAttribute('data-type');
    if (input.type === 'checkbox') { return input.checked; }
    var v = input.value.trim();
    if ((type === 'integer' || type === 'long' || type === 'number') && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(v)) {
      return Number(v);
    }
    return v;
  }

  function showResult(kind, message) {
    var r = $('br-result');
    r.hidden = false;
    r.className = 'br-result br-' + kind;
    r.setAttribute('data-outcome', kind);
    text(r, message);
  }

  function apply(ev) {
    ev.preventDefault();
    var p = selectedPolicy();
    if (!p) { return; }
    var parameters = {};
    p.parameters.forEach(function (d) {
      var input = $('br-param-' + d.id);
      if (!input) { return; }
      input.classList.remove('br-invalid');
      var inForce = p.values[d.id] != null ? p.values[d.id] : d['default'];
      var v = formValue(input);
      if (String(v) !== valueText(inForce)) { parameters[d.id] = v; }
    });
    st.busy = true;
    $('br-apply').disabled = true;
    showResult('pending', 'Applying ' + p.name + '...');
    fetch(root + '/policy', {
      method: 'POST', credentials: 'same-origin', cache: 'no-store',
      headers: { 'Content-Type': 'application/json', 'X-BalanceRoute-CSRF': st.csrf },
      body: JSON.stringify({ policy: p.name, parameters: parameters })
    }).then(function (r) {
      return r.json().catch(function () { return { outcome: 'refused', message: 'HTTP ' + r.status }; });
    }).then(function (res) {
      if (res.outcome === 'applied') {
        var kv = Object.keys(res.parameters || {}).map(function (k) { return k + '=' + res.parameters[k]; }).join(', ');
        showResult('applied', 'Applied: ' + res.active + ' is active' + (kv ? ', in force: ' + kv : '') + '.');
        st.formPolicy = null; // rebuilt from the values in force at the next poll
      } else if (res.outcome === 'pending') {
        showResult('pending', 'Written, not yet in force: ' + (res.message || ''));
        st.formPolicy = null;
      } else {
        var field = res.field ? $('br-param-' + res.field) : null;
        if (field) { field.classList.add('br-invalid'); }
        showResult('refused', 'Refused: ' + res.message + (res.field ? ' [' + res.field + ']' : '')
          + '. The values in force are unchanged.');
      }
    }).catch(function (e) {
      showResult('refused', 'The change did not reach the server: ' + e.message);
    }).then(function () {
      st.busy = false;
      $('br-apply').disabled = !(st.policies && st.policies.manageable);
    });
  }

  // ------------------------------------------------------------ cluster, warning

  function cluster(c) {
    var section = $('br-cluster');
    section.hidden = !(c && c.clustered);
    if (section.hidden) { return; }
    text($('br-cluster-summary'), 'store ' + c.store + ', this replica ' + c.localMember + ', dispatcher '
      + c.dispatcher + ', view age ' + Math.round(c.viewAgeMillis) + ' ms, ' + c.members.length + ' member(s)');
    var body = $('br-members').tBodies[0];
    body.innerHTML = '';
    c.members.forEach(function (m) {
      var tr = document.createElement('tr');
      cell(tr, m.member + (m.local ? ' (this replica)' : ''));
      cell(tr, m.address);
      cell(tr, m.dispatcher ? 'dispatcher' : 'follower');
      cell(tr, fmt(m.load));
      cell(tr, (100 * m.share).toFixed(1) + ' %');
      cell(tr, fmt(m.running)); cell(tr, fmt(m.queued)); cell(tr, fmt(m.pooled));
      body.appendChild(tr);
    });
  }

  function warning(c) {
    var w = $('br-warning');
    if (c.problem) {
      w.hidden = false;
      text(w, 'The console\'s credentials cannot be used by the admin API: ' + c.problem
        + '. Every /admin request is refused until they are fixed.');
    } else if (c.defaultInForce) {
      w.hidden = false;
      text(w, 'The default credentials admin / admin are in force for the web console and the admin API. '
        + 'Change them: username and password in config/org.apache.felix.webconsole.internal.servlet.OsgiManager.cfg '
        + '(see the README, "Web console").');
    } else {
      w.hidden = true;
    }
  }

  // ------------------------------------------------------------ poll

  function render(s) {
    st.csrf = s.csrfToken || st.csrf;
    ingest(s.history);
    workersTable(s.latest);
    policies(s.policies);
    cluster(s.cluster);
    warning(s.credentials);
    st.polls++;
    var status = $('br-status');
    status.className = 'br-status';
    text(status, s.latest
      ? 'step ' + fmt(s.latest.step) + ', prompt pool ' + fmt(s.latest.poolDepth) + ', imbalance '
        + fmt(s.latest.imbalance) + ' tokens, ' + s.latest.workers.length + ' workers of ' + s.latest.capacity
        + ' slots, updated ' + new Date(s.time).toLocaleTimeString()
      : 'no sample of the router yet');
  }

  function poll() {
    fetch(root + '/state.json?since=' + st.seq, { credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) {
        if (!r.ok) { throw new Error('HTTP ' + r.status); }
        return r.json();
      })
      .then(render)
      .catch(function (e) {
        var status = $('br-status');
        status.className = 'br-status br-error';
        text(status, 'The runtime does not answer (' + e.message + '); retrying.');
      })
      .then(function () { setTimeout(poll, POLL_MILLIS); });
  }

  $('br-policy').addEventListener('change', buildForm);
  $('br-policy-form').addEventListener('submit', apply);
  window.addEventListener('resize', function () {
    if (st.loadChart) {
      st.loadChart.setSize({ width: width($('br-load-chart')), height: 300 });
      st.balanceChart.setSize({ width: width($('br-balance-chart')), height: 170 });
    }
  });
  reset(0);
  poll();
}());
