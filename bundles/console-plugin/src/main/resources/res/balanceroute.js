/*
 * The BalanceRoute console page: polls state.json about once a second (only each pool's samples after
 * the last one it has) and draws the fleet: each pool with its active policy, each of its decode
 * instances with its workers' KV load (uPlot, one chart per instance: each instance is its own
 * barrier), its imbalance, drain / undrain buttons and a table of its workers (endpoint, state, load,
 * running, queued) with drain / undrain buttons; beneath a pool's instances, each instance's imbalance
 * and the pool's prompt pool depth over time; then the policies with a form generated from their
 * metatype schema for the pool chosen (the primary pool by default), and the cluster of proxies.
 * Changes are POSTs with the CSRF token the server hands out (header X-BalanceRoute-CSRF).
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
    histories: {}, // by pool: its samples and charts (history())
    fleetKey: null, fleet: null,
    policies: null, listKey: '', formPolicy: null, poolsKey: '', polls: 0
  };
  window.balanceroute = st; // for the browser test and the curious operator

  function $(id) { return document.getElementById(id); }
  function text(el, t) { el.textContent = t; return el; }
  function cell(tr, t) { var td = document.createElement('td'); text(td, t); tr.appendChild(td); return td; }
  function el(tag, cls, t) { var e = document.createElement(tag); if (cls) { e.className = cls; } if (t != null) { text(e, t); } return e; }
  function fmt(n) { return n == null ? '' : Number(n).toLocaleString('en-US'); }
  function color(i, n) { return 'hsl(' + Math.round(330 * i / Math.max(n, 1)) + ', 70%, 42%)'; }
  function width(el) { return Math.max(480, (el.clientWidth || page.clientWidth || 960) - 16); }

  // ------------------------------------------------------------ charts: one per decode instance of every pool

  /**
   * The id of a pool's element: the primary pool's as they were before pools (br-KIND-N, the browser
   * test's), another pool's br-pool-NAME-KIND-N; no KIND there holds a '-', so no pool name can make
   * two pools' ids meet.
   */
  function eid(p, kind, n) {
    var suffix = n == null ? '' : '-' + n;
    return p.primary ? 'br-' + kind.replace('_', '-') + suffix : 'br-pool-' + p.name + '-' + kind + suffix;
  }

  /** The fleet's pool of that name (the primary flag and instance names for its charts). */
  function fleetPool(name) {
    var pools = st.fleet ? st.fleet.pools : [];
    for (var i = 0; i < pools.length; i++) { if (pools[i].name === name) { return pools[i]; } }
    return { name: name, primary: false, instances: [] };
  }

  /** Pool name's samples and charts, made at its first history. */
  function history(name) {
    if (!st.histories[name]) {
      st.histories[name] = { name: name, seq: 0, capacity: 600, workers: -1, layoutKey: null, groups: [], instances: 0,
        xs: [], loads: [], instanceImbalance: [], depth: [], charts: [], balanceChart: null, chartsDirty: true };
    }
    return st.histories[name];
  }

  /** The workers of instance i, in order. */
  function members(h, i) {
    var out = [];
    for (var g = 0; g < h.groups.length; g++) { if (h.groups[g] === i) { out.push(g); } }
    return out;
  }

  function instanceName(p, i) {
    for (var k = 0; k < p.instances.length; k++) { if (p.instances[k].index === i) { return p.instances[k].name; } }
    return String(i);
  }

  function chartData(h, c) { return [h.xs].concat(c.workers.map(function (g) { return h.loads[g]; })); }

  function balanceData(h) { return [h.xs].concat(h.instanceImbalance).concat([h.depth]); }

  function destroyCharts(h) {
    h.charts.forEach(function (c) { c.plot.destroy(); });
    h.charts = [];
    if (h.balanceChart) { h.balanceChart.destroy(); h.balanceChart = null; }
    h.chartsDirty = true;
  }

  /** Builds a pool's charts once every instance's place exists (the fleet section is drawn from the same poll). */
  function buildCharts(h) {
    var p = fleetPool(h.name);
    var balanceDiv = $(eid(p, 'balance_chart'));
    for (var k = 0; k < h.instances; k++) { if (!$(eid(p, 'chart', k))) { return; } }
    if (!balanceDiv) { return; }
    destroyCharts(h);
    for (var i = 0; i < h.instances; i++) {
      var div = $(eid(p, 'chart', i)), ws = members(h, i);
      var series = [{ label: 'time' }];
      ws.forEach(function (g, k) {
        series.push({ label: 'worker ' + g, stroke: color(k, ws.length), width: 1.5, points: { show: false },
          value: function (u, v) { return fmt(v); } });
      });
      var c = { instance: i, workers: ws, div: div, plot: null };
      c.plot = new uPlot({
        width: width(div), height: 220, series: series,
        scales: { x: { time: true } },
        axes: [{}, { label: 'KV tokens', size: 80, values: function (u, vals) { return vals.map(fmt); } }]
      }, chartData(h, c), div);
      h.charts.push(c);
    }
    var bs = [{ label: 'time' }];
    for (var j = 0; j < h.instances; j++) {
      bs.push({ label: 'imbalance ' + instanceName(p, j), stroke: color(j, h.instances), width: 1.5, scale: 'tokens',
        points: { show: false }, value: function (u, v) { return fmt(v); } });
    }
    bs.push({ label: 'pool depth', stroke: '#1f4e79', width: 1.5, dash: [6, 4], scale: 'requests', points: { show: false } });
    h.balanceChart = new uPlot({
      width: width(balanceDiv), height: 170, series: bs,
      scales: { x: { time: true } },
      axes: [{}, { scale: 'tokens', label: 'KV tokens', size: 80, values: function (u, vals) { return vals.map(fmt); } },
        { scale: 'requests', side: 1, label: 'requests', grid: { show: false } }]
    }, balanceData(h), balanceDiv);
    h.balanceDiv = balanceDiv;
    h.chartsDirty = false;
  }

  /** A new layout of a pool's workers into instances (or the first): its history starts again. */
  function reset(h, groups) {
    h.groups = groups.slice();
    h.layoutKey = groups.join(',');
    h.workers = groups.length;
    h.instances = groups.length ? groups[groups.length - 1] + 1 : 0;
    h.xs = []; h.depth = []; h.loads = []; h.instanceImbalance = [];
    for (var g = 0; g < h.workers; g++) { h.loads.push([]); }
    for (var i = 0; i < h.instances; i++) { h.instanceImbalance.push([]); }
    destroyCharts(h);
  }

  /** A pool's new samples (state.json's history for the primary pool, histories[NAME] for the others). */
  function ingest(h, hs) {
    if (hs.seq < h.seq) { // the server restarted, or the pool went and came back: start again
      h.seq = 0; reset(h, h.groups); return;
    }
    h.capacity = hs.capacity;
    hs.samples.forEach(function (s) {
      var groups = s.groups || s.loads.map(function () { return 0; });
      if (groups.join(',') !== h.layoutKey) { reset(h, groups); }
      h.xs.push(s.t / 1000);
      for (var g = 0; g < s.loads.length; g++) { h.loads[g].push(s.loads[g]); }
      for (var i = 0; i < h.instances; i++) {
        h.instanceImbalance[i].push(s.instanceImbalance ? s.instanceImbalance[i] : s.imbalance);
      }
      h.depth.push(s.poolDepth);
    });
    var extra = h.xs.length - h.capacity;
    if (extra > 0) {
      h.xs.splice(0, extra); h.depth.splice(0, extra);
      h.loads.forEach(function (l) { l.splice(0, extra); });
      h.instanceImbalance.forEach(function (l) { l.splice(0, extra); });
    }
    h.seq = hs.seq;
    if (h.chartsDirty) {
      buildCharts(h);
    } else if (hs.samples.length > 0) {
      h.charts.forEach(function (c) { c.plot.setData(chartData(h, c)); });
      h.balanceChart.setData(balanceData(h));
    }
  }

  /** Every pool's new samples; a pool the server no longer samples loses its charts. */
  function ingestAll(s) {
    var all = {};
    Object.keys(s.histories || {}).forEach(function (name) { all[name] = s.histories[name]; });
    all[s.fleet.primaryPool] = s.history;
    Object.keys(st.histories).forEach(function (name) {
      if (!all[name]) { destroyCharts(st.histories[name]); delete st.histories[name]; }
    });
    Object.keys(all).forEach(function (name) { ingest(history(name), all[name]); });
  }

  // ------------------------------------------------------------ fleet: pools, instances, workers, drains

  function fleetKey(f) {
    return JSON.stringify(f.pools.map(function (p) {
      return [p.name, p.primary, p.routed, p.instances.map(function (i) {
        return [i.name, i.workers.map(function (w) { return [w.worker, w.endpoint]; })];
      })];
    }));
  }

  function button(id, label, onClick) {
    var b = el('button', 'ui-button br-drain-button', label);
    b.type = 'button'; b.id = id;
    b.addEventListener('click', onClick);
    return b;
  }

  /** Draws the pools' sections: built again only when the topology changes, updated in place otherwise. */
  function buildFleet(f) {
    var root = $('br-fleet');
    root.innerHTML = '';
    Object.keys(st.histories).forEach(function (name) { destroyCharts(st.histories[name]); });
    f.pools.forEach(function (p) {
      var section = el('div', 'br-pool');
      section.setAttribute('data-pool', p.name);
      var title = el('h3', 'br-h', 'Pool ' + p.name + (p.model ? ' (model ' + p.model + ')' : '')
        + (p.routed ? ', policy ' : ': no router in this runtime yet'));
      if (p.routed) {
        var pol = el('span', 'br-pool-policy', p.activePolicy);
        pol.id = 'br-pool-' + p.name + '-policy';
        title.appendChild(pol);
      }
      section.appendChild(title);
      p.instances.forEach(function (inst) {
        var box = el('div', 'br-instance');
        box.id = eid(p, 'instance', inst.index);
        var head = el('div', 'br-instance-head');
        head.appendChild(el('strong', null, 'Instance ' + inst.name));
        head.appendChild(el('span', 'br-instance-info', ': ' + inst.workers.length + ' worker(s), B ' + inst.capacity));
        head.appendChild(el('span', 'br-imbalance', '')).id = eid(p, 'imbalance', inst.index);
        head.appendChild(button(eid(p, 'drain_instance', inst.index), 'Drain instance',
          function () { drain('drain', { pool: p.name, instance: inst.name }); }));
        head.appendChild(button(eid(p, 'undrain_instance', inst.index), 'Undrain instance',
          function () { drain('undrain', { pool: p.name, instance: inst.name }); }));
        box.appendChild(head);
        if (p.routed) { // charted from its router's history
          box.appendChild(el('div', 'br-chart')).id = eid(p, 'chart', inst.index);
        }
        var table = el('table', 'nicetable br-table br-workers');
        var hr = document.createElement('tr');
        ['worker', 'endpoint', 'state', 'KV load (tokens)', 'running', 'queued', ''].forEach(function (h) {
          hr.appendChild(el('th', null, h));
        });
        table.appendChild(el('thead')).appendChild(hr);
        var body = table.appendChild(el('tbody'));
        inst.workers.forEach(function (w, k) {
          var tr = document.createElement('tr');
          tr.id = eid(p, 'worker', w.worker);
          cell(tr, 'worker ' + w.worker).style.color = color(k, inst.workers.length); // its chart line's
          cell(tr, w.endpoint || '').className = 'br-endpoint';
          cell(tr, w.state || '').className = 'br-state';
          cell(tr, ''); cell(tr, ''); cell(tr, '');
          var actions = cell(tr, '');
          actions.appendChild(button(eid(p, 'drain', w.worker), 'Drain',
            function () { drain('drain', { pool: p.name, worker: String(w.worker) }); }));
          actions.appendChild(button(eid(p, 'undrain', w.worker), 'Undrain',
            function () { drain('undrain', { pool: p.name, worker: String(w.worker) }); }));
          body.appendChild(tr);
        });
        box.appendChild(table);
        section.appendChild(box);
      });
      if (p.routed) {
        section.appendChild(el('h4', 'br-h', 'Pool ' + p.name + ': imbalance per decode instance (max - min KV load '
          + 'of its workers not draining) and prompt pool depth'));
        section.appendChild(el('div', 'br-chart')).id = eid(p, 'balance_chart');
      }
      root.appendChild(section);
    });
  }

  /** A worker row's state and figures. */
  function updateRow(tr, w) {
    var c = tr.cells;
    tr.setAttribute('data-state', w.state || '');
    text(c[2], w.state || '');
    c[2].className = 'br-state br-state-' + (w.state || 'unknown');
    text(c[3], fmt(w.load)); text(c[4], fmt(w.running)); text(c[5], fmt(w.queued));
  }

  function updateFleet(f) {
    f.pools.forEach(function (p) {
      var pol = $('br-pool-' + p.name + '-policy');
      if (pol) { text(pol, p.activePolicy || ''); }
      p.instances.forEach(function (inst) {
        var draining = 0;
        inst.workers.forEach(function (w) {
          var tr = $(eid(p, 'worker', w.worker));
          if (!tr) { return; }
          updateRow(tr, w);
          if (w.draining) { draining++; }
          $(eid(p, 'drain', w.worker)).disabled = st.draining || !!w.draining || w.state == null;
          $(eid(p, 'undrain', w.worker)).disabled = st.draining || !w.draining;
        });
        var imb = $(eid(p, 'imbalance', inst.index));
        if (imb) {
          text(imb, inst.imbalance == null ? '' : ', imbalance ' + fmt(inst.imbalance) + ' tokens'
            + (draining ? ', ' + draining + ' draining' : ''));
        }
        var d = $(eid(p, 'drain_instance', inst.index)), u = $(eid(p, 'undrain_instance', inst.index));
        if (d) { d.disabled = st.draining || draining === inst.workers.length || inst.imbalance == null; }
        if (u) { u.disabled = st.draining || draining === 0; }
      });
    });
  }

  function fleet(f) {
    st.fleet = f;
    if (!f) { return; }
    var msg = $('br-fleet-message');
    msg.hidden = !f.message;
    text(msg, f.message || '');
    var key = fleetKey(f);
    if (key !== st.fleetKey) {
      buildFleet(f);
      st.fleetKey = key;
    }
    updateFleet(f);
    policyPools(f);
  }

  /** The policy form's pool selector: every pool with a router, the primary pool chosen at first. */
  function policyPools(f) {
    var names = f.pools.filter(function (p) { return p.routed; }).map(function (p) { return p.name; });
    if (names.indexOf(f.primaryPool) < 0) { names.unshift(f.primaryPool); }
    var key = names.join(',');
    if (key === st.poolsKey) { return; }
    var select = $('br-policy-pool');
    var keep = select.value || f.primaryPool;
    select.innerHTML = '';
    names.forEach(function (n) {
      var opt = document.createElement('option');
      opt.value = n; text(opt, n + (n === f.primaryPool ? ' (primary)' : ''));
      select.appendChild(opt);
    });
    select.value = names.indexOf(keep) < 0 ? f.primaryPool : keep;
    st.poolsKey = key;
  }

  function selectedPool() {
    return $('br-policy-pool').value || (st.fleet ? st.fleet.primaryPool : 'default');
  }

  /** The active policy of the pool the form is for (the fleet's figure; the primary pool's without one). */
  function poolActive() {
    var name = selectedPool();
    var pools = st.fleet ? st.fleet.pools : [];
    for (var i = 0; i < pools.length; i++) {
      if (pools[i].name === name && pools[i].activePolicy) { return pools[i].activePolicy; }
    }
    return st.policies ? st.policies.active : '';
  }

  /** POST balanceroute/ACTION with a JSON body and the CSRF token; the answer's JSON (a refusal if it has none). */
  function post(action, body) {
    return fetch(root + '/' + action, {
      method: 'POST', credentials: 'same-origin', cache: 'no-store',
      headers: { 'Content-Type': 'application/json', 'X-BalanceRoute-CSRF': st.csrf },
      body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().catch(function () { return { outcome: 'refused', message: 'HTTP ' + r.status }; });
    });
  }

  /** POST balanceroute/drain or /undrain of a worker or an instance, with the CSRF token. */
  function drain(action, what) {
    st.draining = true;
    if (st.fleet) { updateFleet(st.fleet); }
    showResult('br-fleet-result', 'pending', (action === 'drain' ? 'Draining ' : 'Ending the drain of ')
      + 'pool ' + what.pool + ', ' + (what.instance != null ? 'instance ' + what.instance : 'worker ' + what.worker) + '...');
    post(action, what).then(function (res) {
      if (res.outcome === 'applied') {
        showResult('br-fleet-result', 'applied', res.message + '.');
      } else {
        showResult('br-fleet-result', 'refused', 'Refused: ' + res.message + '.');
      }
    }).catch(function (e) {
      showResult('br-fleet-result', 'refused', 'The ' + action + ' did not reach the server: ' + e.message);
    }).then(function () {
      st.draining = false;
      if (st.fleet) { updateFleet(st.fleet); }
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
    var active = poolActive();
    text($('br-active'), active);
    var select = $('br-policy');
    var key = ps.list.map(function (p) { return p.name; }).join(',');
    if (key !== st.listKey) {
      var keep = select.value || active;
      select.innerHTML = '';
      ps.list.forEach(function (p) {
        var opt = document.createElement('option');
        opt.value = p.name; text(opt, p.name + (p.name === active ? ' (active)' : ''));
        select.appendChild(opt);
      });
      select.value = keep;
      if (!select.value) { select.value = active; }
      st.listKey = key;
      st.formPolicy = null;
    } else {
      for (var i = 0; i < select.options.length; i++) {
        var p = ps.list[i];
        text(select.options[i], p.name + (p.name === active ? ' (active)' : ''));
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

  /** Shows an outcome (applied, pending, refused) in the result box of that id. */
  function showResult(id, kind, message) {
    var r = $(id);
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
    var pool = selectedPool();
    showResult('br-result', 'pending', 'Applying ' + p.name + ' to pool ' + pool + '...');
    post('policy', { pool: pool, policy: p.name, parameters: parameters }).then(function (res) {
      if (res.outcome === 'applied') {
        var kv = Object.keys(res.parameters || {}).map(function (k) { return k + '=' + res.parameters[k]; }).join(', ');
        showResult('br-result', 'applied', 'Applied: ' + res.active + ' is active in pool ' + res.pool
          + (kv ? ', in force: ' + kv : '') + '.');
        st.formPolicy = null; // rebuilt from the values in force at the next poll
      } else if (res.outcome === 'pending') {
        showResult('br-result', 'pending', 'Written, not yet in force: ' + (res.message || ''));
        st.formPolicy = null;
      } else {
        var field = res.field ? $('br-param-' + res.field) : null;
        if (field) { field.classList.add('br-invalid'); }
        showResult('br-result', 'refused', 'Refused: ' + res.message + (res.field ? ' [' + res.field + ']' : '')
          + '. The values in force are unchanged.');
      }
    }).catch(function (e) {
      showResult('br-result', 'refused', 'The change did not reach the server: ' + e.message);
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

  /** Each instance's imbalance (each is its own barrier), or the one figure without a fleet. */
  function imbalances(f, latest) {
    var served = f ? f.pools.filter(function (p) { return p.primary && p.imbalance != null; })[0] : null;
    if (!served) { return fmt(latest.imbalance) + ' tokens'; }
    return served.instances.map(function (i) {
      return (served.instances.length > 1 ? i.name + ' ' : '') + fmt(i.imbalance);
    }).join(', ') + ' tokens';
  }

  function render(s) {
    st.csrf = s.csrfToken || st.csrf;
    fleet(s.fleet);
    ingestAll(s);
    policies(s.policies);
    cluster(s.cluster);
    warning(s.credentials);
    st.polls++;
    var status = $('br-status');
    status.className = 'br-status';
    text(status, s.latest
      ? 'step ' + fmt(s.latest.step) + ', prompt pool ' + fmt(s.latest.poolDepth) + ', imbalance '
        + imbalances(s.fleet, s.latest) + ', ' + s.latest.workers.length + ' workers of ' + s.latest.capacity
        + ' slots, updated ' + new Date(s.time).toLocaleTimeString()
      : 'no sample of the router yet');
  }

  function poll() {
    // each pool's samples after the last one this page has (none yet: all of them)
    var since = Object.keys(st.histories).map(function (name) {
      return encodeURIComponent('since.' + name) + '=' + st.histories[name].seq;
    });
    fetch(root + '/state.json' + (since.length ? '?' + since.join('&') : ''), { credentials: 'same-origin', cache: 'no-store' })
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
  $('br-policy-pool').addEventListener('change', function () {
    // the form starts from the chosen pool's active policy
    $('br-policy').value = poolActive();
    if (st.policies) { policies(st.policies); }
    buildForm();
  });
  $('br-policy-form').addEventListener('submit', apply);
  window.addEventListener('resize', function () {
    Object.keys(st.histories).forEach(function (name) {
      var h = st.histories[name];
      h.charts.forEach(function (c) { c.plot.setSize({ width: width(c.div), height: 220 }); });
      if (h.balanceChart) { h.balanceChart.setSize({ width: width(h.balanceDiv), height: 170 }); }
    });
  });
  poll();
}());
