// The kueuepp web view: a read-only single page over the controller's introspection
// endpoint (/debug/...). Routes are URL fragments; an event stream (/debug/stream)
// carries the cohort trees whenever they change, and the page shown is redrawn from it.
'use strict';

const PAGE = 100;  // pending workloads per page of a queue
const view = document.getElementById('view');
const live = document.getElementById('live');
let cohorts = null;        // the last /debug/cohorts document
let refreshQueued = false;

// ---- small helpers ---------------------------------------------------------------
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null) continue;
    if (k === 'class') e.className = v; else if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}
function svg(tag, attrs, ...children) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}
function table(headers, rows) {
  return el('table', {}, el('thead', {}, el('tr', {}, ...headers.map(h => el('th', {text: h})))), el('tbody', {}, ...rows));
}
function num(v) { return el('td', {class: 'num', text: v === undefined ? '' : String(v)}); }
async function getJson(path) {
  const r = await fetch(path, {headers: {Accept: 'application/json'}});
  const body = await r.json().catch(() => ({error: 'not JSON (HTTP ' + r.status + ')'}));
  if (!r.ok) throw new Error(body.error || ('HTTP ' + r.status));
  return body;
}
function cqLink(name) { return el('a', {href: '#/clusterqueue/' + encodeURIComponent(name), text: name}); }
function wlLink(key) { return el('a', {href: '#/workload/' + key.split('/').map(encodeURIComponent).join('/'), text: key}); }
function fmtTime(t) { return t ? new Date(t).toLocaleString() : ''; }

// A bar of `used` (and what of it is borrowed) against the nominal quota.
function quotaBar(line) {
  const nominal = line.nominalMilli || 0, used = line.reservedMilli || 0, borrowed = line.borrowedMilli || 0;
  const scale = Math.max(nominal, used, 1), w = 120;
  const s = svg('svg', {width: w, height: 10, class: 'bar', role: 'img'});
  s.append(svg('rect', {x: 0, y: 0, width: w, height: 10, fill: '#eef1f6'}));
  s.append(svg('rect', {x: 0, y: 0, width: w * (used - borrowed) / scale, height: 10, fill: '#2f6fde'}));
  s.append(svg('rect', {x: w * (used - borrowed) / scale, y: 0, width: w * borrowed / scale, height: 10, fill: '#f79009'}));
  if (nominal > 0 && nominal < scale) s.append(svg('line', {x1: w * nominal / scale, x2: w * nominal / scale, y1: 0, y2: 10, stroke: '#1d2330'}));
  s.append(svg('title', {}, document.createTextNode(`reserved ${line.reserved} of nominal ${line.nominal || 0}, borrowed ${line.borrowed}`)));
  return s;
}

// A line chart of series [{name, color, points: [[t, v]...]}] over the last hour.
function lineChart(title, series) {
  const W = 420, H = 150, L = 40, B = 20;
  const now = Date.now() / 1000, from = now - 3600;
  let max = 1;
  for (const s of series) for (const [, v] of s.points) max = Math.max(max, v);
  const x = t => L + (W - L - 6) * (t - from) / 3600, y = v => (H - B) - (H - B - 8) * v / max;
  const c = svg('svg', {width: W, height: H, role: 'img', 'aria-label': title});
  c.append(svg('line', {x1: L, x2: W - 6, y1: H - B, y2: H - B, stroke: '#d9dde5'}));
  c.append(svg('text', {x: 2, y: 12}, document.createTextNode(String(max))));
  c.append(svg('text', {x: 2, y: H - B}, document.createTextNode('0')));
  c.append(svg('text', {x: L, y: H - 4}, document.createTextNode('-60 min')));
  c.append(svg('text', {x: W - 30, y: H - 4}, document.createTextNode('now')));
  for (const s of series) {
    if (s.points.length === 0) continue;
    // Steps: a value holds until the next sample, the last one until now.
    let d = '', prev = null;
    for (const [t, v] of s.points) {
      const px = x(Math.max(t, from)).toFixed(1), py = y(v).toFixed(1);
      d += prev === null ? `M${px},${py}` : `H${px}V${py}`;
      prev = py;
    }
    d += `H${x(now).toFixed(1)}`;
    c.append(svg('path', {d, fill: 'none', stroke: s.color, 'stroke-width': 1.5}));
    // The latest value as a dot: a queue seen for one sample only still shows it (its
    // line is then a point, which draws nothing).
    c.append(svg('circle', {cx: x(now).toFixed(1), cy: prev, r: 3, fill: s.color}));
  }
  const legend = el('div', {class: 'legend'}, ...series.map(s => el('span', {style: `color:${s.color}`, text: '\u25a0 ' + s.name})));
  return el('div', {class: 'chart'}, el('h3', {text: title}), c, legend);
}

// ---- pages -------------------------------------------------------------------------
function renderCohorts() {
  if (!cohorts) { view.replaceChildren(el('p', {class: 'muted', text: 'Waiting for the controller...'})); return; }
  const parts = [el('h2', {text: `Cohort trees (${cohorts.trees.length}), ClusterQueues (${cohorts.clusterQueueCount})`})];
  for (const tree of cohorts.trees) {
    const title = tree.root ? 'cohort ' + tree.root : 'ClusterQueue without a cohort';
    const rows = [];
    for (const cq of tree.clusterQueues) {
      const lines = cq.resources || [];
      const span = Math.max(lines.length, 1);
      const first = [
        el('td', {rowspan: span}, cqLink(cq.name), cq.active ? '' : el('div', {class: 'reason', text: 'inactive: ' + (cq.inactiveReason || '')})),
        el('td', {rowspan: span, text: (cq.cohortPath || []).join(' \u2190 ')}),
        num(cq.pending), num(cq.reserving), num(cq.admitted)].map(c => { if (c.tagName === 'TD') c.rowSpan = span; return c; });
      const cells = l => [el('td', {text: l.flavor}), el('td', {text: l.resource}), num(l.nominal || '0'), num(l.reserved),
                          num(l.used), num(l.borrowed), num(l.lent), el('td', {}, quotaBar(l))];
      if (lines.length === 0) {
        rows.push(el('tr', {'data-cq': cq.name}, ...first, el('td', {colspan: 8, class: 'muted', text: 'no quota'})));
      } else {
        lines.forEach((l, i) => rows.push(el('tr', i === 0 ? {'data-cq': cq.name} : {}, ...(i === 0 ? first : []), ...cells(l))));
      }
    }
    parts.push(el('section', {class: 'tree'}, el('h3', {text: title}),
      table(['ClusterQueue', 'cohorts (parent first)', 'pending', 'reserving', 'admitted', 'flavor', 'resource', 'nominal',
             'reserved', 'used', 'borrowed', 'lent', ''], rows)));
  }
  view.replaceChildren(...parts);
}

async function renderQueue(name, offset) {
  const [page, report] = await Promise.all([
    getJson(`/debug/clusterqueues/${encodeURIComponent(name)}?offset=${offset}&limit=${PAGE}`),
    getJson(`/debug/clusterqueues/${encodeURIComponent(name)}/history`).catch(() => null)]);
  const parts = [el('h2', {}, 'ClusterQueue ', el('span', {text: name}))];
  parts.push(table(['active', 'pending', 'reserving', 'admitted', 'cohort tree'], [el('tr', {},
    el('td', {text: page.active ? 'yes' : 'no: ' + (page.inactiveReason || '')}), num(page.pendingWorkloads),
    num(page.reservingWorkloads), num(page.admittedWorkloads), el('td', {text: page.cohortTree}))]));
  if (report && report.history) {
    const h = report.history;
    const counts = [
      {name: 'pending', color: '#b54708', points: h.map(s => [s.t, s.pending])},
      {name: 'admitted', color: '#067647', points: h.map(s => [s.t, s.admitted])},
      {name: 'reserving', color: '#2f6fde', points: h.map(s => [s.t, s.reserving])}];
    const resources = [...new Set(h.flatMap(s => Object.keys(s.usedMilli || {})))];
    const palette = ['#2f6fde', '#7a5af8', '#067647', '#b54708', '#c11574'];
    const usage = resources.map((r, i) => ({name: r + ' (milli)', color: palette[i % palette.length],
                                            points: h.map(s => [s.t, (s.usedMilli || {})[r] || 0])}));
    parts.push(el('div', {class: 'charts'}, lineChart('Workloads, last hour', counts), lineChart('Reserved quota, last hour', usage)));
  }
  const total = page.pendingWorkloads || 0;
  const pager = el('div', {class: 'pager'},
    offset > 0 ? el('a', {href: `#/clusterqueue/${encodeURIComponent(name)}?offset=${Math.max(0, offset - PAGE)}`, text: '\u2190 previous'}) : '',
    el('span', {text: total === 0 ? 'no pending workloads' : `pending ${offset + 1}\u2013${Math.min(offset + PAGE, total)} of ${total}`}),
    offset + PAGE < total ? el('a', {href: `#/clusterqueue/${encodeURIComponent(name)}?offset=${offset + PAGE}`, text: 'next \u2192'}) : '');
  parts.push(el('h3', {text: 'Pending workloads, in queue order'}), pager);
  parts.push(table(['position', 'workload', 'local queue', 'priority', 'reason', 'message'], (page.pending || []).map(p =>
    el('tr', {'data-workload': p.workload}, num(p.position), el('td', {}, wlLink(p.workload)), el('td', {text: p.localQueue || ''}),
       num(p.priority), el('td', {class: 'reason', text: p.reason || ''}), el('td', {text: p.message || ''})))));
  view.replaceChildren(...parts);
}

async function renderWorkload(key) {
  const w = await getJson('/debug/workloads/' + key.split('/').map(encodeURIComponent).join('/'));
  const kv = [['state', w.state], ['ClusterQueue', w.clusterQueue], ['local queue', w.localQueue], ['priority', w.priority],
              ['position', w.position], ['reason', w.reason], ['message', w.message], ['created', fmtTime(w.createdAt)]];
  const parts = [el('h2', {}, 'Workload ', el('span', {text: key})),
    el('table', {class: 'kv'}, ...kv.filter(([, v]) => v !== undefined && v !== '').map(([k, v]) =>
      el('tr', {}, el('td', {text: k}), el('td', {}, k === 'ClusterQueue' ? cqLink(v) : String(v)))))];
  if (w.admission) parts.push(el('h3', {text: 'Admission'}), el('pre', {text: JSON.stringify(w.admission, null, 2)}));
  if (w.lastPreemption) {
    const p = w.lastPreemption;
    parts.push(el('h3', {text: 'Last preemption'}), el('p', {}, 'by ', wlLink(p.preemptor), ` (${p.reason}) at ${fmtTime(p.at)}: ${p.message}`));
  }
  // The history: creation, each condition's last change, and what the controller said.
  const entries = [];
  if (w.createdAt) entries.push({at: w.createdAt, what: 'Created', detail: ''});
  for (const c of w.conditions || []) entries.push({at: c.lastTransitionTime, what: `${c.type}=${c.status}`, reason: c.reason, detail: c.message});
  for (const e of w.events || []) entries.push({at: e.firstTimestamp, what: e.reason + (e.count > 1 ? ` (\u00d7${e.count})` : ''), reason: e.type, detail: e.message});
  entries.sort((a, b) => String(a.at).localeCompare(String(b.at)));
  parts.push(el('h3', {text: 'History'}), table(['time', 'what', 'reason', 'detail'], entries.map(e =>
    el('tr', {}, el('td', {text: fmtTime(e.at)}), el('td', {text: e.what}), el('td', {text: e.reason || ''}), el('td', {text: e.detail || ''})))));
  view.replaceChildren(...parts);
}

async function renderActors() {
  const a = await getJson('/debug/actors');
  const actors = a.actors.slice().sort((x, y) => (x.kind + x.name).localeCompare(y.kind + y.name));
  view.replaceChildren(el('h2', {text: `Actors (${actors.length})`}),
    el('p', {class: 'muted', text: 'Message rates are measured between two loads of this page; it reloads every 2 s.'}),
    table(['kind', 'name', 'mailbox', 'handled', 'messages/s', 'state'], actors.map(x => el('tr', {'data-actor': x.kind + '/' + x.name},
      el('td', {text: x.kind}), el('td', {text: x.name}), num(x.mailbox), num(x.handled),
      num(x.messagesPerSecond === undefined ? '' : x.messagesPerSecond.toFixed(1)),
      el('td', {}, el('pre', {text: x.error ? 'error: ' + x.error : JSON.stringify(x.state)}))))));
}

// ---- routing and live updates ------------------------------------------------------
function route() {
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path, query] = hash.split('?');
  const params = new URLSearchParams(query || '');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'clusterqueue' && parts[1]) return () => renderQueue(parts[1], Math.max(0, parseInt(params.get('offset') || '0', 10) || 0));
  if (parts[0] === 'workload' && parts.length === 3) return () => renderWorkload(parts[1] + '/' + parts[2]);
  if (parts[0] === 'actors') return renderActors;
  return async () => { if (!cohorts) cohorts = await getJson('/debug/cohorts'); renderCohorts(); };
}

async function show() {
  try {
    await route()();
  } catch (e) {
    view.replaceChildren(el('p', {class: 'error', text: 'Could not load: ' + e.message}));
  }
}

// Redraws the page shown at most once at a time (a redraw in flight takes the next one).
function refresh() {
  if (refreshQueued) return;
  refreshQueued = true;
  setTimeout(async () => { await show(); refreshQueued = false; }, 0);
}

function connect() {
  const stream = new EventSource('/debug/stream');
  stream.addEventListener('open', () => { live.textContent = 'live'; live.className = 'live on'; });
  stream.addEventListener('error', () => { live.textContent = 'reconnecting'; live.className = 'live off'; });
  stream.addEventListener('cohorts', ev => {
    cohorts = JSON.parse(ev.data);
    document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
    refresh();
  });
}

window.addEventListener('hashchange', show);
setInterval(() => { if (location.hash.startsWith('#/actors')) refresh(); }, 2000);
show();
connect();
