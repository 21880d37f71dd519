// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// The HTML report's page (`jitscope report --format html`): it reads the profile the report
// embedded in #profile-data (html_writer.h says what is in it) and draws the views from it:
//   - the flame graph (or icicle) on a canvas: search, zoom by clicking, a tooltip per frame;
//   - the call tree, top-down, with total and self samples;
//   - the callers and callees of one function, merged over all its call sites;
//   - the annotated code of the versions the report disassembled;
//   - the timeline: a track per thread (per process when there are several) with the density of
//     its samples over its periods off the CPU (coloured by why), the JIT engine's code events it
//     reported (every version loaded, updated, unloaded or moved), its ITT tasks and markers, and
//     per process the loads and ends of the JIT code versions the samples ran and its ITT
//     counters; dragging across it selects a time range, which every other view then shows
//     alone (an off-CPU sample weighs the part of its time off the CPU inside it);
//   - for `jitscope report --diff-base OLD NEW`, a differential flame graph and a table.
// Every count is of the current selection: the samples of the chosen threads in the chosen time
// range, aggregated from scratch (per call-tree node, then up the tree), so a view never mixes
// selections. Names are only ever assigned as text, never parsed as HTML. Nothing is fetched.
'use strict';
(function () {
  const data = JSON.parse(document.getElementById('profile-data').textContent);
  const strings = data.strings;
  const str = (i) => (i < 0 ? '' : strings[i]);
  const diff = data.diff || null;

  // ---- The model: frames, the tree of distinct stacks (nodes), samples per thread ------------
  const frames = data.frames;
  const frameCount = frames.name.length;
  const nodeParent = Int32Array.from(data.nodes.parent);
  const nodeFrame = Int32Array.from(data.nodes.frame);
  const nodeCount = nodeParent.length;  // node 0 is the root, parents come before children

  const threads = [];
  if (data.threads) {
    for (let i = 0; i < data.threads.pid.length; ++i) {
      const deltas = data.threads.times[i];
      const times = new Float64Array(deltas.length);
      let t = 0;
      for (let j = 0; j < deltas.length; ++j) times[j] = t += deltas[j];
      const column = (name) => (data.threads[name] ? data.threads[name][i] : []);
      const slices = {
        at: column('slice_at'), us: column('slice_us'), name: column('slice_name'), lane: column('slice_lane'),
      };
      threads.push({
        pid: data.threads.pid[i],
        tid: data.threads.tid[i],
        name: str(data.threads.name[i]),
        times: times,
        nodes: Int32Array.from(data.threads.nodes[i]),
        // Periods off the CPU: when, how long, why, and the node of the off-CPU sample kept (-1).
        off: { at: column('off_at'), us: column('off_us'), why: column('off_why'), node: column('off_node') },
        slices: slices,
        lanes: slices.lane.reduce((most, lane) => Math.max(most, lane + 1), 0),
        marks: { at: column('mark_at'), name: column('mark_name') },
        // The JIT engine's code events the thread reported: every version loaded, updated,
        // unloaded or moved, sampled or not.
        jit: {
          at: column('jit_at'), event: column('jit_event'), name: column('jit_name'),
          version: column('jit_version'), address: column('jit_address'), size: column('jit_size'),
        },
      });
    }
    // The samples are kept once, in the typed arrays above: the parsed lists go.
    data.threads.times = null;
    data.threads.nodes = null;
  }
  const durationUs = Math.max(1, data.duration_us || 1);
  const versions = data.versions;

  const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
  const fmtPct = (part, whole) => (whole > 0 ? (100 * part / whole).toFixed(2) + '%' : '-');
  const fmtSeconds = (us) => (us / 1e6).toFixed(3) + ' s';
  // A time from the start of the recording: "+1.250 s", or "-0.004 s" for code loaded before it.
  const fmtAt = (us) => (us < 0 ? '-' : '+') + fmtSeconds(Math.abs(us));
  const baseName = (path) => (path.startsWith('/') ? path.slice(path.lastIndexOf('/') + 1) : path);
  // A canvas `width` x `height` CSS pixels, sharp on the screen's pixels, cleared; its context
  // draws in CSS pixels.
  function sizeCanvas(canvas, width, height) {
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.height = height + 'px';
    const ctx = canvas.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    return ctx;
  }

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // ---- Selection: which samples every view counts ---------------------------------------------
  const state = {
    range: null,          // [from, to] in µs since the start of the recording, or null: all
    soloThread: -1,       // a thread seen alone, or -1: every thread
    grouping: 'tier',
    search: '',
    zoom: 0,              // the view node the flame graph is zoomed into (0: the root)
    icicle: false,
    view: 'flame',
    callersKey: -1,       // the function of the callers view (a key of the grouping)
    codeFilter: '',
    codeVersion: -1,
  };

  const nodeSelf = new Float64Array(nodeCount);
  const nodeBase = new Float64Array(nodeCount);  // diff: the base run's samples
  let selectedTotal = 0;
  let baseTotal = 0;

  function countSamples() {
    nodeSelf.fill(0);
    selectedTotal = 0;
    if (diff) {
      // Two whole runs: no time to select in.
      nodeSelf.set(diff.new_self);
      nodeBase.set(diff.base_self);
      selectedTotal = diff.new_total;
      baseTotal = diff.base_total;
      return;
    }
    for (let i = 0; i < threads.length; ++i) {
      if (state.soloThread >= 0 && state.soloThread !== i) continue;
      const t = threads[i];
      let lo = 0;
      let hi = t.times.length;
      if (state.range) {
        lo = lowerBound(t.times, state.range[0]);
        hi = lowerBound(t.times, state.range[1]);
      }
      const nodes = t.nodes;
      for (let j = lo; j < hi; ++j) nodeSelf[nodes[j]] += 1;
      selectedTotal += hi - lo;
      // An off-CPU sample weighs the time its thread was off the CPU, as samples of the period: the
      // part of it in the selected range.
      const off = t.off;
      for (let j = 0; j < off.node.length; ++j) {
        if (off.node[j] < 0) continue;
        let from = off.at[j];
        let to = from + off.us[j];
        if (state.range) {
          from = Math.max(from, state.range[0]);
          to = Math.min(to, state.range[1]);
        }
        if (to <= from) continue;
        const weight = (to - from) * 1000 / periodNs;
        nodeSelf[off.node[j]] += weight;
        selectedTotal += weight;
      }
    }
  }
  const periodNs = Math.max(1, data.period_ns || 1000000);

  function lowerBound(array, value) {
    let lo = 0;
    let hi = array.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (array[mid] < value) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  // ---- Keys: what one box stands for, by the chosen grouping of JIT versions -----------------
  // merged: a function by its name (a V8 tier mark, "JS:*f" or "JS:~f", left out), whatever tier
  //         or version of its code ran; native and kernel code by name and module;
  // tier:   by name and module (a JIT's tiers are its modules), as the SVG flame graph;
  // version: each version of JIT code (one load of it) on its own.
  const versionOrdinal = new Int32Array(versions ? versions.pid.length : 0);
  const versionCountOf = new Int32Array(versions ? versions.pid.length : 0);
  (function numberVersions() {
    if (!versions) return;
    // Versions of one function in one process, by load time.
    const byFunction = new Map();
    for (let f = 0; f < frameCount; ++f) {
      const v = frames.version[f];
      if (v < 0 || frames.inlined[f]) continue;
      const key = versions.pid[v] + '\u0000' + str(frames.name[f]);
      if (!byFunction.has(key)) byFunction.set(key, new Set());
      byFunction.get(key).add(v);
    }
    for (const set of byFunction.values()) {
      const list = Array.from(set).sort((a, b) => versions.loaded_us[a] - versions.loaded_us[b]);
      list.forEach((v, i) => { versionOrdinal[v] = i + 1; versionCountOf[v] = list.length; });
    }
  })();

  function mergedName(f) {
    const name = str(frames.name[f]);
    return frames.jit[f] ? name.replace(/^([A-Za-z]+:)[*~^+]/, '$1') : name;
  }

  let keys = null;  // the keys of the current grouping
  function buildKeys(grouping) {
    const ids = new Map();
    const keyOfFrame = new Int32Array(frameCount);
    const label = [];
    const frame = [];     // a frame the key stands for (tooltips: module, kind, colour)
    const lines = [];     // the one line of all its frames, or -1 when they differ
    const versionOf = []; // version mode: the key's version, else -1
    for (let f = 0; f < frameCount; ++f) {
      const jit = frames.jit[f] === 1;
      let id;
      let text;
      if (grouping === 'merged' && jit) {
        text = mergedName(f);
        id = 'j\u0000' + text + '\u0000' + frames.inlined[f];
      } else {
        text = str(frames.label[f]);
        id = str(frames.name[f]) + '\u0000' + str(frames.module[f]) + '\u0000' + frames.kind[f] +
            '\u0000' + frames.inlined[f];
        if (grouping === 'version' && frames.version[f] >= 0) {
          const v = frames.version[f];
          id += '\u0000' + v;
          if (versionCountOf[v] > 1) text += ' v' + versionOrdinal[v];
        }
      }
      let k = ids.get(id);
      if (k === undefined) {
        k = label.length;
        ids.set(id, k);
        label.push(text);
        frame.push(f);
        lines.push(frames.line[f]);
        versionOf.push(grouping === 'version' ? frames.version[f] : -1);
      } else if (lines[k] !== frames.line[f] || str(frames.file[f]) !== str(frames.file[frame[k]])) {
        lines[k] = -1;
      }
      keyOfFrame[f] = k;
    }
    return { keyOfFrame, label, frame, lines, versionOf, count: label.length };
  }

  // ---- The view tree: the stacks' tree with the frames grouped by key ------------------------
  let view = null;
  function buildView() {
    keys = buildKeys(state.grouping);
    const parent = [0];
    const key = [-1];
    const children = [[]];
    const viewOf = new Int32Array(nodeCount);
    const byParentKey = new Map();
    for (let n = 1; n < nodeCount; ++n) {
      const pv = viewOf[nodeParent[n]];
      const k = keys.keyOfFrame[nodeFrame[n]];
      const id = pv * keys.count + k;
      let v = byParentKey.get(id);
      if (v === undefined) {
        v = parent.length;
        byParentKey.set(id, v);
        parent.push(pv);
        key.push(k);
        children.push([]);
        children[pv].push(v);
      }
      viewOf[n] = v;
    }
    const size = parent.length;
    for (const list of children) {
      list.sort((a, b) => {
        const la = keys.label[key[a]];
        const lb = keys.label[key[b]];
        return la < lb ? -1 : la > lb ? 1 : a - b;
      });
    }
    view = {
      parent: Int32Array.from(parent),
      key: Int32Array.from(key),
      children,
      viewOf,
      size,
      self: new Float64Array(size),
      total: new Float64Array(size),
      baseSelf: new Float64Array(size),
      baseTotal: new Float64Array(size),
    };
    state.zoom = 0;
  }

  function sumView() {
    const v = view;
    v.self.fill(0);
    v.baseSelf.fill(0);
    for (let n = 0; n < nodeCount; ++n) {
      v.self[v.viewOf[n]] += nodeSelf[n];
      if (diff) v.baseSelf[v.viewOf[n]] += nodeBase[n];
    }
    v.total.set(v.self);
    v.baseTotal.set(v.baseSelf);
    for (let i = v.size - 1; i > 0; --i) {
      v.total[v.parent[i]] += v.total[i];
      if (diff) v.baseTotal[v.parent[i]] += v.baseTotal[i];
    }
  }

  function pathOf(v) {
    const path = [];
    for (; v !== 0; v = view.parent[v]) path.push(v);
    return path.reverse();
  }

  // What a box says about itself (tooltips, the callers view's heading).
  function describeKey(k, samples, selfSamples, extra) {
    const f = keys.frame[k];
    const lines = [keys.label[k]];
    const kind = str(frames.kind[f]);
    const module = str(frames.module[f]);
    let what = kind + (module ? ' · ' + module : '');
    const v = keys.versionOf[k] >= 0 ? keys.versionOf[k] : -1;
    if (v >= 0) {
      what += ' · version ' + versionOrdinal[v] + ' of ' + versionCountOf[v];
    } else if (frames.version[f] >= 0 && state.grouping !== 'version') {
      const n = versionCountOf[frames.version[f]];
      if (n > 1) what += ' · ' + n + ' versions (split them with "JIT versions")';
    }
    lines.push(what);
    if (v >= 0) lines.push(describeVersion(v));
    const file = str(frames.file[f]);
    if (file) lines.push(keys.lines[k] > 0 ? file + ':' + keys.lines[k] : file);
    if (samples !== undefined) {
      let counts = fmtInt(samples) + ' samples, ' + fmtPct(samples, selectedTotal) + ' of ' +
          (state.range || state.soloThread >= 0 ? 'the selection' : 'all');
      if (selfSamples !== undefined) counts += '; self ' + fmtInt(selfSamples);
      lines.push(counts);
    }
    if (extra) lines.push(extra);
    return lines.join('\n');
  }

  function describeVersion(v) {
    let text = 'pid ' + versions.pid[v] + ', 0x' + versions.start[v].toString(16) + ', ' +
        versions.size[v] + ' bytes, loaded at ' + fmtAt(versions.loaded_us[v]);
    text += versions.invalidated_us[v] < 0 ? ', never replaced'
                                            : ', replaced at ' + fmtAt(versions.invalidated_us[v]);
    if (versions.method[v] >= 0) text += ', method #' + versions.method[v];
    return text;
  }

  // ---- Search ---------------------------------------------------------------------------------
  let matchingKeys = null;  // Uint8Array per key, or null when no search
  function updateSearch() {
    const term = state.search.trim().toLowerCase();
    if (!term) {
      matchingKeys = null;
      document.getElementById('matched').textContent = '';
      return;
    }
    matchingKeys = new Uint8Array(keys.count);
    for (let k = 0; k < keys.count; ++k) {
      if (keys.label[k].toLowerCase().includes(term)) matchingKeys[k] = 1;
    }
    // The samples under a match, each once (not again under a match inside a match).
    let matched = 0;
    const stack = [0];
    while (stack.length) {
      const v = stack.pop();
      if (v !== 0 && matchingKeys[view.key[v]]) {
        matched += view.total[v];
        continue;
      }
      for (const c of view.children[v]) stack.push(c);
    }
    document.getElementById('matched').textContent =
        'matched: ' + fmtInt(matched) + ' samples (' + fmtPct(matched, selectedTotal) + ')';
  }

  // ---- Flame graph ----------------------------------------------------------------------------
  const flameCanvas = document.getElementById('flame');
  const flameScroll = document.getElementById('flame-scroll');
  const rowHeight = 17;
  let flameRows = [];  // per depth: {v: [], x: [], w: []} in CSS pixels
  let flameDepth = 0;
  let firstFlamePaint = true;

  function layoutFlame(width) {
    flameRows = [];
    const push = (depth, v, x, w) => {
      while (flameRows.length <= depth) flameRows.push({ v: [], x: [], w: [] });
      const row = flameRows[depth];
      row.v.push(v);
      row.x.push(x);
      row.w.push(w);
    };
    const zoom = state.zoom;
    const path = pathOf(zoom);
    const total = view.total[zoom];
    push(0, 0, 0, width);
    for (let i = 0; i < path.length; ++i) push(i + 1, path[i], 0, width);
    if (total <= 0) {
      flameDepth = flameRows.length;
      return;
    }
    const scale = width / total;
    // Depth-first; sortRows puts each row in x order afterwards.
    const stack = [[zoom, 0, path.length]];
    while (stack.length) {
      const [v, x, depth] = stack.pop();
      const kids = view.children[v];
      let cx = x;
      const placed = [];
      for (const c of kids) {
        const w = view.total[c] * scale;
        if (w >= 0.35) placed.push([c, cx, depth + 1, w]);
        cx += w;
      }
      for (const [c, px, d, w] of placed) push(d, c, px, w);
      for (let i = placed.length - 1; i >= 0; --i) stack.push(placed[i].slice(0, 3));
    }
    flameDepth = flameRows.length;
  }

  // Each row in x order, for hit testing by binary search.
  function sortRows() {
    for (const row of flameRows) {
      const order = row.x.map((_, i) => i).sort((a, b) => row.x[a] - row.x[b]);
      row.v = order.map((i) => row.v[i]);
      row.x = order.map((i) => row.x[i]);
      row.w = order.map((i) => row.w[i]);
    }
  }

  let charWidth = 7;
  function boxColour(v) {
    const k = view.key[v];
    if (v === 0) return 'rgb(220,220,220)';
    if (matchingKeys && matchingKeys[k]) return 'rgb(230,0,230)';
    if (diff) return diffColour(v);
    return str(frames.colour[keys.frame[k]]);
  }

  function diffColour(v) {
    const now = selectedTotal > 0 ? view.total[v] / selectedTotal : 0;
    const before = baseTotal > 0 ? view.baseTotal[v] / baseTotal : 0;
    const change = now - before;
    // Saturated at a change of a tenth of all samples; white-ish when nothing changed.
    const strength = Math.min(1, Math.abs(change) / 0.1);
    const fade = Math.round(235 - 175 * strength);
    return change > 0 ? 'rgb(240,' + fade + ',' + fade + ')' : 'rgb(' + fade + ',' + fade + ',240)';
  }

  function labelOf(v) {
    if (v === 0) {
      return diff ? 'all (' + fmtInt(view.total[0]) + ' samples, base ' + fmtInt(view.baseTotal[0]) + ')'
                  : 'all (' + fmtInt(view.total[0]) + ' samples)';
    }
    return keys.label[view.key[v]];
  }

  function drawFlame() {
    const width = flameScroll.clientWidth || 1200;
    layoutFlame(width);
    sortRows();
    const height = Math.max(flameDepth, 1) * rowHeight;
    const ctx = sizeCanvas(flameCanvas, width, height);
    ctx.font = '12px ui-monospace, monospace';
    charWidth = ctx.measureText('m').width || 7;
    ctx.textBaseline = 'middle';
    for (let d = 0; d < flameRows.length; ++d) {
      const row = flameRows[d];
      const y = rowY(d);
      for (let i = 0; i < row.v.length; ++i) {
        const v = row.v[i];
        const x = row.x[i];
        const w = row.w[i];
        ctx.fillStyle = boxColour(v);
        ctx.fillRect(x, y, Math.max(w - 0.5, 0.35), rowHeight - 1);
        const f = v === 0 ? -1 : keys.frame[view.key[v]];
        if (f >= 0 && frames.inlined[f] && w > 4) {
          ctx.save();
          ctx.strokeStyle = '#1a6b6b';
          ctx.setLineDash([3, 2]);
          ctx.lineWidth = 0.8;
          ctx.strokeRect(x + 0.5, y + 0.5, w - 1.5, rowHeight - 2);
          ctx.restore();
        }
        const text = fit(labelOf(v), w);
        if (text) {
          ctx.fillStyle = '#000';
          ctx.fillText(text, x + 3, y + rowHeight / 2);
        }
      }
    }
    const zoomed = state.zoom !== 0;
    document.getElementById('reset-zoom').disabled = !zoomed;
    const shown = view.total[state.zoom];
    let total = fmtInt(selectedTotal) + ' samples' +
        (state.range || state.soloThread >= 0 ? ' in the selection' : '');
    if (zoomed) total += '; zoomed into ' + keys.label[view.key[state.zoom]] + ': ' + fmtInt(shown);
    if (diff) {
      total = 'new: ' + fmtInt(selectedTotal) + ' samples, base: ' + fmtInt(baseTotal) +
          ' samples; widths are the new run\'s, colours the change of each share';
    }
    document.getElementById('flame-total').textContent = total;
    if (firstFlamePaint) {
      firstFlamePaint = false;
      if (!state.icicle) flameScroll.scrollTop = flameScroll.scrollHeight;
    }
  }

  function rowY(depth) {
    return state.icicle ? depth * rowHeight : (flameDepth - 1 - depth) * rowHeight;
  }

  function fit(text, w) {
    if (w < 21) return '';
    const n = Math.floor((w - 6) / charWidth);
    if (n < 3) return '';
    return text.length <= n ? text : text.slice(0, n - 2) + '..';
  }

  function flameHit(event) {
    const rect = flameCanvas.getBoundingClientRect();
    const x = event.clientX - rect.left;
    const y = event.clientY - rect.top;
    const rowFromTop = Math.floor(y / rowHeight);
    const depth = state.icicle ? rowFromTop : flameDepth - 1 - rowFromTop;
    if (depth < 0 || depth >= flameRows.length) return -1;
    const row = flameRows[depth];
    let lo = 0;
    let hi = row.x.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (row.x[mid] <= x) lo = mid + 1; else hi = mid;
    }
    const i = lo - 1;
    if (i < 0 || x > row.x[i] + row.w[i]) return -1;
    return row.v[i];
  }

  const tooltip = document.getElementById('tooltip');
  function showTooltip(event, text) {
    tooltip.textContent = text;
    tooltip.hidden = false;
    const pad = 14;
    let x = event.clientX + pad;
    let y = event.clientY + pad;
    const box = tooltip.getBoundingClientRect();
    if (x + box.width > window.innerWidth) x = Math.max(0, event.clientX - box.width - pad);
    if (y + box.height > window.innerHeight) y = Math.max(0, event.clientY - box.height - pad);
    tooltip.style.left = x + 'px';
    tooltip.style.top = y + 'px';
  }
  function hideTooltip() { tooltip.hidden = true; }

  function flameTooltip(v) {
    if (v === 0) return labelOf(0);
    const k = view.key[v];
    let extra = '';
    if (state.zoom !== 0 && v !== state.zoom) {
      extra = fmtPct(view.total[v], view.total[state.zoom]) + ' of the zoomed frame';
    }
    if (diff) {
      const now = view.total[v] / Math.max(1, selectedTotal);
      const before = view.baseTotal[v] / Math.max(1, baseTotal);
      extra = 'base: ' + fmtInt(view.baseTotal[v]) + ' samples (' + (100 * before).toFixed(2) +
          '%), new: ' + (100 * now).toFixed(2) + '%, change ' + signedPoints(now - before);
    }
    let text = describeKey(k, view.total[v], view.self[v], extra);
    text += '\nclick: zoom · shift-click: callers and callees' + (codeOfKey(k).length ? ' · alt-click: code' : '');
    return text;
  }

  function signedPoints(change) {
    return (change >= 0 ? '+' : '') + (100 * change).toFixed(2) + ' points';
  }

  flameCanvas.addEventListener('mousemove', (event) => {
    const v = flameHit(event);
    if (v < 0) return hideTooltip();
    showTooltip(event, flameTooltip(v));
  });
  flameCanvas.addEventListener('mouseleave', hideTooltip);
  flameCanvas.addEventListener('click', (event) => {
    const v = flameHit(event);
    if (v < 0) return;
    if (event.shiftKey && v !== 0) return showCallers(view.key[v]);
    if (event.altKey && v !== 0) return showCode(view.key[v]);
    state.zoom = v;
    hideTooltip();
    drawFlame();
  });
  document.getElementById('reset-zoom').addEventListener('click', () => {
    state.zoom = 0;
    drawFlame();
  });
  document.getElementById('icicle').addEventListener('change', (event) => {
    state.icicle = event.target.checked;
    drawFlame();
    if (!state.icicle) flameScroll.scrollTop = flameScroll.scrollHeight;
    else flameScroll.scrollTop = 0;
  });

  // ---- Call tree ------------------------------------------------------------------------------
  const expanded = new Set();
  const maxChildrenShown = 200;

  function treeRow(cells, depth, hasChildren, open, onToggle, keyIndex, onName) {
    const tr = el('tr');
    for (const [text, cls] of cells.numbers) tr.appendChild(el('td', { class: cls || 'num' }, text));
    const name = el('td', { class: 'name' });
    name.appendChild(document.createTextNode('  '.repeat(depth)));
    const toggle = el('span', { class: 'toggle' }, hasChildren ? (open ? '▾' : '▸') : ' ');
    if (hasChildren) toggle.addEventListener('click', onToggle);
    name.appendChild(toggle);
    if (keyIndex >= 0) {
      const swatch = el('span', { class: 'swatch' });
      swatch.style.background = str(frames.colour[keys.frame[keyIndex]]);
      name.appendChild(swatch);
    }
    const fn = el('span', { class: 'fn' }, cells.name);
    if (keyIndex >= 0 && frames.inlined[keys.frame[keyIndex]]) fn.classList.add('inlined');
    if (onName) fn.addEventListener('click', onName);
    if (keyIndex >= 0) fn.title = 'callers and callees of ' + cells.name;
    name.appendChild(fn);
    if (keyIndex >= 0 && codeOfKey(keyIndex).length) {
      const actions = el('span', { class: 'actions' });
      const link = el('a', null, 'code');
      link.addEventListener('click', () => showCode(keyIndex));
      actions.appendChild(link);
      name.appendChild(actions);
    }
    tr.appendChild(name);
    for (const text of cells.after) tr.appendChild(el('td', null, text));
    return tr;
  }

  function moduleText(k) {
    return baseName(str(frames.module[keys.frame[k]]));
  }
  function sourceText(k) {
    const f = keys.frame[k];
    const file = str(frames.file[f]);
    if (!file) return '';
    return keys.lines[k] > 0 ? baseName(file) + ':' + keys.lines[k] : baseName(file);
  }

  function renderTree() {
    const body = document.querySelector('#tree tbody');
    const rows = document.createDocumentFragment();
    const total = Math.max(selectedTotal, 1);
    const add = (v, depth) => {
      const kids = view.children[v].filter((c) => view.total[c] > 0)
          .sort((a, b) => view.total[b] - view.total[a]);
      const open = expanded.has(v);
      const k = view.key[v];
      const label = v === 0 ? 'all' : keys.label[k];
      rows.appendChild(treeRow({
        numbers: [[fmtPct(view.total[v], total)], [fmtInt(view.total[v])],
                  [fmtPct(view.self[v], total)], [fmtInt(view.self[v])]],
        name: label,
        after: v === 0 ? ['', ''] : [moduleText(k), sourceText(k)],
      }, depth, kids.length > 0, open, () => {
        if (expanded.has(v)) expanded.delete(v); else expanded.add(v);
        renderTree();
      }, v === 0 ? -1 : k, v === 0 ? null : () => showCallers(k)));
      if (!open) return;
      kids.slice(0, maxChildrenShown).forEach((c) => add(c, depth + 1));
      if (kids.length > maxChildrenShown) {
        const tr = el('tr');
        tr.appendChild(el('td', { colspan: 7, class: 'hint' },
                          '  '.repeat(depth + 1) + (kids.length - maxChildrenShown) + ' more, each under ' +
                          fmtPct(view.total[kids[maxChildrenShown]], total)));
        rows.appendChild(tr);
      }
    };
    add(0, 0);
    body.replaceChildren(rows);
  }

  // Opens the hottest path from the root down to where it splits below a fifth of the samples.
  function expandHotPath() {
    expanded.clear();
    let v = 0;
    for (let depth = 0; depth < 64; ++depth) {
      expanded.add(v);
      let best = -1;
      for (const c of view.children[v]) if (best < 0 || view.total[c] > view.total[best]) best = c;
      if (best < 0 || view.total[best] * 5 < view.total[0]) break;
      v = best;
    }
  }

  // ---- Callers and callees of one function ----------------------------------------------------
  // Over the stacks with the function, each counted once: its callers from its innermost call
  // (outwards), its callees from its outermost (inwards), so recursion is not counted twice.
  function callersAndCallees(k) {
    const callers = { children: new Map(), total: 0 };
    const callees = { children: new Map(), total: 0 };
    let total = 0;
    let self = 0;
    const insert = (tree, keysOnPath, weight) => {
      let node = tree;
      node.total += weight;
      for (const key of keysOnPath) {
        let child = node.children.get(key);
        if (!child) {
          child = { children: new Map(), total: 0, key };
          node.children.set(key, child);
        }
        child.total += weight;
        node = child;
      }
    };
    for (let v = 1; v < view.size; ++v) {
      const weight = view.self[v];
      if (weight === 0) continue;
      const path = pathOf(v).map((x) => view.key[x]);
      const outer = path.indexOf(k);
      if (outer < 0) continue;
      const inner = path.lastIndexOf(k);
      total += weight;
      if (inner === path.length - 1) self += weight;
      insert(callers, path.slice(0, inner).reverse(), weight);
      insert(callees, path.slice(outer + 1), weight);
    }
    return { callers, callees, total, self };
  }

  const callersOpen = new Set();
  function renderCallers() {
    const input = document.getElementById('callers-function');
    const summary = document.getElementById('callers-summary');
    const k = state.callersKey;
    const bodies = [document.querySelector('#callers tbody'), document.querySelector('#callees tbody')];
    if (k < 0) {
      summary.textContent = 'choose a function here, or click one in the call tree (shift-click in the flame graph)';
      bodies.forEach((b) => b.replaceChildren());
      return;
    }
    input.value = keys.label[k];
    const result = callersAndCallees(k);
    summary.textContent = fmtInt(result.total) + ' samples with it on the stack (' +
        fmtPct(result.total, selectedTotal) + '), ' + fmtInt(result.self) + ' in it (' +
        fmtPct(result.self, selectedTotal) + ')';
    [[result.callers, bodies[0], 'callers'], [result.callees, bodies[1], 'callees']].forEach(([tree, body, which]) => {
      const rows = document.createDocumentFragment();
      const add = (node, depth, path) => {
        const kids = Array.from(node.children.values()).sort((a, b) => b.total - a.total);
        for (const child of kids.slice(0, maxChildrenShown)) {
          const id = which + path + '/' + child.key;
          const open = callersOpen.has(id);
          rows.appendChild(treeRow({
            numbers: [[fmtPct(child.total, Math.max(selectedTotal, 1))], [fmtInt(child.total)]],
            name: keys.label[child.key],
            after: [moduleText(child.key)],
          }, depth, child.children.size > 0, open, () => {
            if (callersOpen.has(id)) callersOpen.delete(id); else callersOpen.add(id);
            renderCallers();
          }, child.key, () => showCallers(child.key)));
          if (open) add(child, depth + 1, path + '/' + child.key);
        }
        if (depth === 0 && kids.length === 0) {
          const tr = el('tr');
          tr.appendChild(el('td', { colspan: 4, class: 'hint' },
                            which === 'callers' ? 'none: it is where its stacks start' : 'none: it calls nothing that was sampled'));
          rows.appendChild(tr);
        }
      };
      add(tree, 0, '');
      body.replaceChildren(rows);
    });
  }

  function showCallers(k) {
    state.callersKey = k;
    callersOpen.clear();
    selectView('callers');
  }

  function fillFunctionNames() {
    const list = document.getElementById('function-names');
    const totals = new Float64Array(keys.count);
    // Each key once per stack: the total of the outermost box of each key on each path.
    const onPath = new Int32Array(keys.count);
    const stack = [[0, false]];
    // Depth-first without recursion (stacks may be thousands deep): enter, then leave.
    while (stack.length) {
      const [v, leaving] = stack.pop();
      const k = view.key[v];
      if (leaving) {
        if (v !== 0) onPath[k]--;
        continue;
      }
      if (v !== 0) {
        if (onPath[k] === 0) totals[k] += view.total[v];
        onPath[k]++;
      }
      stack.push([v, true]);
      for (const c of view.children[v]) stack.push([c, false]);
    }
    const order = Array.from({ length: keys.count }, (_, i) => i).filter((k) => totals[k] > 0)
        .sort((a, b) => totals[b] - totals[a]).slice(0, 2000);
    list.replaceChildren(...order.map((k) => el('option', { value: keys.label[k] })));
  }

  document.getElementById('callers-function').addEventListener('change', (event) => {
    const wanted = event.target.value;
    const k = keys.label.indexOf(wanted);
    if (k >= 0) showCallers(k);
  });

  // ---- Code: the annotated versions -----------------------------------------------------------
  const code = data.code || [];
  function codeOfKey(k) {
    if (k < 0) return [];
    const f = keys.frame[k];
    const name = str(frames.name[f]);
    const v = keys.versionOf[k];
    const out = [];
    for (let i = 0; i < code.length; ++i) {
      const c = code[i];
      if (str(c.name) !== name && !(state.grouping === 'merged' && frames.jit[f] && mergedCodeName(c) === mergedName(f))) continue;
      if (v >= 0 && c.version !== v) continue;
      out.push(i);
    }
    return out;
  }
  function mergedCodeName(c) { return str(c.name).replace(/^([A-Za-z]+:)[*~^+]/, '$1'); }

  function showCode(k) {
    const f = keys.frame[k];
    state.codeFilter = str(frames.name[f]);
    const found = codeOfKey(k);
    state.codeVersion = found.length ? found[0] : -1;
    document.getElementById('code-filter').value = state.codeFilter;
    selectView('code');
  }

  function renderCode() {
    const list = document.getElementById('code-list');
    const detail = document.getElementById('code-detail');
    const filter = state.codeFilter.trim().toLowerCase();
    // An instruction's counts are the recording's: the page keeps no instruction per sample.
    document.getElementById('code-summary').textContent =
        (state.range || state.soloThread >= 0 ? 'the counts are of the whole recording, not the selection; ' : '') +
        (data.code_note || '');
    const table = el('table');
    const head = el('tr');
    for (const h of ['Samples', 'Share', 'Function', 'Module', 'Version', 'pid']) head.appendChild(el('th', null, h));
    table.appendChild(head);
    let shown = 0;
    code.forEach((c, i) => {
      if (filter && !str(c.name).toLowerCase().includes(filter)) return;
      if (shown++ >= 300) return;
      const tr = el('tr', { class: 'version' + (i === state.codeVersion ? ' selected' : '') });
      tr.appendChild(el('td', { class: 'num' }, fmtInt(c.samples)));
      tr.appendChild(el('td', { class: 'num' }, fmtPct(c.samples, data.total)));
      tr.appendChild(el('td', null, str(c.name)));
      tr.appendChild(el('td', null, baseName(str(c.module))));
      tr.appendChild(el('td', null, c.native ? 'native' : c.version >= 0 && versionCountOf[c.version] > 1
          ? 'v' + versionOrdinal[c.version] + ' of ' + versionCountOf[c.version] : ''));
      tr.appendChild(el('td', null, String(c.pid)));
      tr.addEventListener('click', () => { state.codeVersion = i; renderCode(); });
      table.appendChild(tr);
    });
    list.replaceChildren(shown ? table : el('p', { class: 'hint' }, code.length ? 'no annotated code matches' : 'no code was annotated'));
    detail.replaceChildren();
    if (state.codeVersion < 0 || state.codeVersion >= code.length) return;
    detail.appendChild(renderAnnotation(code[state.codeVersion]));
  }

  function renderAnnotation(c) {
    const box = el('div');
    box.appendChild(el('h2', null, str(c.title)));
    for (const line of c.header) box.appendChild(el('div', { class: 'hint' }, str(line)));
    const table = el('table', { class: 'code' });
    const head = el('tr');
    for (const h of ['Share', 'Samples', '', 'Offset', 'Address', 'Instruction']) head.appendChild(el('th', null, h));
    table.appendChild(head);
    const ins = c.instructions;
    let previousSource = -2;
    const hot = Math.max(1, c.samples) * 0.05;
    let maxSamples = 1;
    for (const s of ins.samples) maxSamples = Math.max(maxSamples, s);
    for (let i = 0; i < ins.offset.length; ++i) {
      if (ins.source[i] !== previousSource) {
        const tr = el('tr', { class: 'source' });
        tr.appendChild(el('td', { colspan: 6 }, ins.source[i] < 0 ? '(no source)' : str(ins.source[i])));
        table.appendChild(tr);
        previousSource = ins.source[i];
      }
      const samples = ins.samples[i];
      const tr = el('tr', { class: samples > 0 && samples >= hot ? 'hot' : '' });
      tr.appendChild(el('td', { class: 'num' }, samples ? fmtPct(samples, c.samples) : ''));
      tr.appendChild(el('td', { class: 'num' }, samples ? fmtInt(samples) : ''));
      const barCell = el('td', { class: 'bar-cell' });
      if (samples) {
        const heat = el('span', { class: 'heat' });
        heat.style.width = Math.max(1, Math.round(80 * samples / maxSamples)) + 'px';
        barCell.appendChild(heat);
      }
      tr.appendChild(barCell);
      tr.appendChild(el('td', { class: 'num' }, '+0x' + ins.offset[i].toString(16)));
      tr.appendChild(el('td', { class: 'num' }, (c.start + ins.offset[i]).toString(16)));
      tr.appendChild(el('td', null, ins.text[i]));
      table.appendChild(tr);
      if (ins.below[i] > 0) {
        const below = el('tr', { class: 'below' });
        below.appendChild(el('td', { colspan: 5 }));
        below.appendChild(el('td', null, '^ ' + fmtInt(ins.below[i]) + ' sample' + (ins.below[i] === 1 ? '' : 's') +
            ' (' + fmtPct(ins.below[i], data.total) + ' of the session) below this call'));
        table.appendChild(below);
      }
    }
    box.appendChild(table);
    return box;
  }

  document.getElementById('code-filter').addEventListener('input', (event) => {
    state.codeFilter = event.target.value;
    state.codeVersion = -1;
    renderCode();
  });

  // ---- Timeline -------------------------------------------------------------------------------
  const timelineCanvas = document.getElementById('timeline');
  const trackHeight = 18;
  const labelWidth = 170;
  const axisHeight = 16;
  let tracks = [];  // {thread, y} or {process, y}
  let brush = null;  // [x0, x1] while dragging

  const laneHeight = 14;
  const counterHeight = 18;
  // Why a thread was off the CPU, by colour: the band drawn under its samples.
  const offColours = {
    preempted: '#e8a8a8', sleeping: '#a8c8ec', lock: '#f0c27a', 'I/O': '#c8a8e8', poll: '#9ed8c0',
    waiting: '#cfcfcf',
  };
  const sliceColour = '#8cc084';
  const markerColour = '#8e44ad';
  // The JIT engine's events on the thread that reported them, by kind.
  const jitColours = {
    load: '#27ae60', 'new version': '#16a085', update: '#d4ac0d', unload: '#922b21', move: '#7f8c8d',
  };
  const counterColour = '#e67e22';
  const countersOf = new Map();  // pid → indices into data.counters
  (data.counters || []).forEach((c, i) => {
    if (!countersOf.has(c.pid)) countersOf.set(c.pid, []);
    countersOf.get(c.pid).push(i);
  });

  // A track per process (its JIT events, then a row per counter) and per thread (its samples'
  // density over its periods off the CPU, then a lane per level of its ITT slices).
  function layoutTracks() {
    tracks = [];
    let y = axisHeight;
    const byPid = new Map();
    threads.forEach((t, i) => {
      if (!byPid.has(t.pid)) byPid.set(t.pid, []);
      byPid.get(t.pid).push(i);
    });
    const names = new Map();
    if (data.processes) data.processes.pid.forEach((pid, i) => names.set(pid, str(data.processes.name[i])));
    for (const [pid, list] of byPid) {
      tracks.push({ process: pid, y, height: trackHeight, label: (names.get(pid) || '?') + ' (pid ' + pid + ')' });
      y += trackHeight;
      for (const c of countersOf.get(pid) || []) {
        tracks.push({ counter: c, y, height: counterHeight, label: '  ' + str(data.counters[c].name) });
        y += counterHeight;
      }
      for (const i of list) {
        const t = threads[i];
        const height = trackHeight + t.lanes * laneHeight;
        tracks.push({ thread: i, y, height, label: (t.name || '?') + ' ' + t.tid });
        y += height;
      }
    }
    return y;
  }

  function timeOfX(x, width) {
    const usable = width - labelWidth;
    return Math.max(0, Math.min(durationUs, (x - labelWidth) / usable * durationUs));
  }
  function xOfTime(t, width) { return labelWidth + t / durationUs * (width - labelWidth); }

  let densityCache = null;
  function densities(columns) {
    if (densityCache && densityCache.columns === columns) return densityCache;
    const perThread = threads.map((t) => {
      const counts = new Float64Array(columns);
      for (let j = 0; j < t.times.length; ++j) {
        const c = Math.min(columns - 1, Math.floor(t.times[j] / durationUs * columns));
        counts[c] += 1;
      }
      return counts;
    });
    let max = 1;
    for (const counts of perThread) for (const c of counts) if (c > max) max = c;
    densityCache = { columns, perThread, max };
    return densityCache;
  }

  function drawTimeline() {
    if (!threads.length) {
      document.getElementById('timeline-panel').hidden = true;
      return;
    }
    const width = timelineCanvas.parentElement.clientWidth || 1200;
    const height = layoutTracks();
    const ctx = sizeCanvas(timelineCanvas, width, height);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    // Axis: seconds since the start of the recording.
    ctx.fillStyle = '#666';
    const seconds = durationUs / 1e6;
    const step = niceStep(seconds / Math.max(1, (width - labelWidth) / 90));
    for (let s = 0; s <= seconds + 1e-9; s += step) {
      const x = xOfTime(s * 1e6, width);
      ctx.fillRect(x, axisHeight - 4, 1, 4);
      ctx.fillText(s.toFixed(step < 0.01 ? 3 : step < 0.1 ? 2 : step < 1 ? 1 : 0) + ' s', x + 2, axisHeight / 2);
    }
    const columns = Math.max(1, Math.floor(width - labelWidth));
    const d = densities(columns);
    for (const track of tracks) {
      const y = track.y;
      if (track.counter !== undefined) {
        drawCounter(ctx, track, width);
        continue;
      }
      if (track.process !== undefined) {
        ctx.fillStyle = '#eee';
        ctx.fillRect(0, y, width, trackHeight);
        ctx.fillStyle = '#111';
        ctx.fillText(track.label, 4, y + trackHeight / 2);
        drawJitEvents(ctx, track.process, y, width);
        continue;
      }
      const i = track.thread;
      const dim = state.soloThread >= 0 && state.soloThread !== i;
      ctx.fillStyle = dim ? '#aaa' : '#111';
      ctx.fillText((state.soloThread === i ? '● ' : '  ') + track.label, 4, y + trackHeight / 2);
      const t = threads[i];
      for (let j = 0; j < t.off.at.length; ++j) {
        const x0 = Math.max(labelWidth, xOfTime(t.off.at[j], width));
        const x1 = Math.min(width, xOfTime(t.off.at[j] + t.off.us[j], width));
        if (x1 < labelWidth || x0 > width) continue;
        ctx.fillStyle = offColours[str(t.off.why[j])] || offColours.waiting;
        ctx.fillRect(x0, y + 2, Math.max(1, x1 - x0), trackHeight - 3);
      }
      drawSlices(ctx, t, y + trackHeight, width);
      for (let j = 0; j < t.marks.at.length; ++j) {
        if (t.marks.at[j] < 0 || t.marks.at[j] > durationUs) continue;
        ctx.fillStyle = markerColour;
        ctx.fillRect(xOfTime(t.marks.at[j], width) - 1, y + 1, 2, track.height - 2);
      }
      // Events before the recording began (code an attached process loaded earlier) stand at
      // its start.
      for (let j = 0; j < t.jit.at.length; ++j) {
        ctx.fillStyle = jitColours[str(t.jit.event[j])] || jitColours.move;
        ctx.fillRect(xOfTime(clampTime(t.jit.at[j]), width) - 1, y + 1, 2, trackHeight - 2);
      }
      const counts = d.perThread[i];
      ctx.fillStyle = dim ? '#c8d3e0' : '#4a7bd0';
      for (let c = 0; c < columns; ++c) {
        if (counts[c] === 0) continue;
        const h = Math.max(1, (trackHeight - 3) * counts[c] / d.max);
        ctx.fillRect(labelWidth + c, y + trackHeight - 1 - h, 1, h);
      }
      ctx.fillStyle = '#e4e4e4';
      ctx.fillRect(labelWidth, y + trackHeight - 1, width - labelWidth, 1);
    }
    // The selection, or the range being dragged.
    let from = null;
    let to = null;
    if (brush) {
      from = Math.min(brush[0], brush[1]);
      to = Math.max(brush[0], brush[1]);
    } else if (state.range) {
      from = xOfTime(state.range[0], width);
      to = xOfTime(state.range[1], width);
    }
    if (from !== null) {
      ctx.fillStyle = 'rgba(255, 190, 0, 0.25)';
      ctx.fillRect(from, axisHeight, Math.max(1, to - from), height - axisHeight);
      ctx.fillStyle = 'rgba(200, 120, 0, 0.9)';
      ctx.fillRect(from, axisHeight, 1, height - axisHeight);
      ctx.fillRect(to, axisHeight, 1, height - axisHeight);
    }
  }

  // A thread's ITT slices, a lane per level, each named where it is wide enough.
  function drawSlices(ctx, t, top, width) {
    const sl = t.slices;
    for (let j = 0; j < sl.at.length; ++j) {
      const x0 = Math.max(labelWidth, xOfTime(sl.at[j], width));
      const x1 = Math.min(width, xOfTime(sl.at[j] + sl.us[j], width));
      if (x1 < labelWidth || x0 > width) continue;
      const y = top + sl.lane[j] * laneHeight;
      ctx.fillStyle = sliceColour;
      ctx.fillRect(x0, y + 1, Math.max(1, x1 - x0), laneHeight - 2);
      const name = fit(str(sl.name[j]), x1 - x0 - 6);
      if (name) {
        ctx.fillStyle = '#111';
        ctx.fillText(name, x0 + 3, y + laneHeight / 2);
      }
    }
  }

  // A counter's values as steps, from its least to its greatest, labelled with its name.
  function drawCounter(ctx, track, width) {
    const c = data.counters[track.counter];
    ctx.fillStyle = '#333';
    ctx.fillText(track.label, 4, track.y + counterHeight / 2);
    let lo = 0;
    let hi = 0;
    for (const v of c.values) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    const span = hi - lo || 1;
    ctx.fillStyle = counterColour;
    for (let j = 0; j < c.at.length; ++j) {
      const x0 = Math.max(labelWidth, xOfTime(c.at[j], width));
      const x1 = Math.min(width, j + 1 < c.at.length ? xOfTime(c.at[j + 1], width) : width);
      if (x1 <= x0) continue;
      const h = Math.max(1, (counterHeight - 4) * (c.values[j] - lo) / span);
      ctx.fillRect(x0, track.y + counterHeight - 2 - h, x1 - x0, h);
    }
  }

  // The value a counter had at time `t` (µs), or null before its first.
  function counterValueAt(c, t) {
    let found = null;
    for (let j = 0; j < c.at.length && c.at[j] <= t; ++j) found = c.values[j];
    return found;
  }

  // What is at time `t` (µs) on a thread's track at height `dy` below its top: a slice of the lane
  // there, a marker within `slack` µs, or the period off the CPU around it.
  function threadThingsAt(th, t, dy, slack) {
    const lines = [];
    if (dy >= trackHeight) {
      const lane = Math.floor((dy - trackHeight) / laneHeight);
      const sl = th.slices;
      for (let j = 0; j < sl.at.length; ++j) {
        if (sl.lane[j] === lane && sl.at[j] <= t && t <= sl.at[j] + sl.us[j]) {
          lines.push('task ' + str(sl.name[j]) + ': ' + fmtAt(sl.at[j]) + ' for ' + fmtDuration(sl.us[j]));
        }
      }
    }
    for (let j = 0; j < th.marks.at.length; ++j) {
      if (Math.abs(th.marks.at[j] - t) <= slack) lines.push('marker ' + str(th.marks.name[j]) + ': ' + fmtAt(th.marks.at[j]));
    }
    const jit = th.jit;
    for (let j = 0; j < jit.at.length; ++j) {
      if (dy >= trackHeight || Math.abs(clampTime(jit.at[j]) - t) > slack) continue;
      lines.push('JIT ' + str(jit.event[j]) + ': ' + str(jit.name[j]) +
          (jit.version[j] > 1 ? ' (version ' + jit.version[j] + ')' : '') + ', 0x' + jit.address[j].toString(16) +
          ', ' + jit.size[j] + ' bytes, ' + fmtAt(jit.at[j]));
    }
    const off = th.off;
    for (let j = 0; j < off.at.length; ++j) {
      if (dy >= trackHeight || off.at[j] > t || t > off.at[j] + off.us[j]) continue;
      let line = 'off the CPU: ' + str(off.why[j]) + ', ' + fmtAt(off.at[j]) + ' for ' + fmtDuration(off.us[j]);
      if (off.node[j] >= 0) line += '\n  in ' + stackText(nodeParent[off.node[j]], 4);
      lines.push(line);
    }
    return lines;
  }

  const clampTime = (us) => Math.max(0, Math.min(durationUs, us));
  const fmtDuration = (us) => (us >= 1e6 ? (us / 1e6).toFixed(3) + ' s' : (us / 1e3).toFixed(1) + ' ms');

  // The frames from `node` up, innermost first, at most `most` of them.
  function stackText(node, most) {
    const names = [];
    for (let n = node; n > 0 && names.length < most; n = nodeParent[n]) names.push(str(frames.label[nodeFrame[n]]));
    return names.join(' \u2190 ') || '?';
  }

  // The loads (green) and ends (red) of the process's JIT code versions the samples ran.
  function drawJitEvents(ctx, pid, y, width) {
    if (!versions) return;
    for (let v = 0; v < versions.pid.length; ++v) {
      if (versions.pid[v] !== pid) continue;
      ctx.fillStyle = '#2a9d3a';
      ctx.fillRect(xOfTime(Math.max(0, versions.loaded_us[v]), width) - 1, y + 3, 2, trackHeight - 6);
      if (versions.invalidated_us[v] >= 0 && versions.invalidated_us[v] <= durationUs) {
        ctx.fillStyle = '#c0392b';
        ctx.fillRect(xOfTime(versions.invalidated_us[v], width) - 1, y + 3, 2, trackHeight - 6);
      }
    }
  }

  function niceStep(raw) {
    const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-6))));
    for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
    return 10 * p;
  }

  function jitEventAt(pid, x, width) {
    const found = [];
    if (!versions) return found;
    for (let v = 0; v < versions.pid.length; ++v) {
      if (versions.pid[v] !== pid) continue;
      if (Math.abs(xOfTime(Math.max(0, versions.loaded_us[v]), width) - x) <= 2) found.push(['loaded', v]);
      if (versions.invalidated_us[v] >= 0 && Math.abs(xOfTime(versions.invalidated_us[v], width) - x) <= 2) {
        found.push(['replaced', v]);
      }
    }
    return found;
  }

  function versionName(v) {
    for (let f = 0; f < frameCount; ++f) {
      if (frames.version[f] === v && !frames.inlined[f]) return str(frames.label[f]);
    }
    return 'code';
  }

  function trackAt(y) {
    for (const t of tracks) if (y >= t.y && y < t.y + t.height) return t;
    return null;
  }

  timelineCanvas.addEventListener('mousedown', (event) => {
    const rect = timelineCanvas.getBoundingClientRect();
    const x = event.clientX - rect.left;
    if (x < labelWidth) {
      const track = trackAt(event.clientY - rect.top);
      if (track && track.thread !== undefined) {
        state.soloThread = state.soloThread === track.thread ? -1 : track.thread;
        applySelection();
      }
      return;
    }
    brush = [x, x];
    event.preventDefault();
  });
  window.addEventListener('mousemove', (event) => {
    const rect = timelineCanvas.getBoundingClientRect();
    const x = event.clientX - rect.left;
    if (brush) {
      brush[1] = Math.max(labelWidth, Math.min(rect.width, x));
      requestTimelineDraw();
      return;
    }
    if (event.target !== timelineCanvas) return;
    const y = event.clientY - rect.top;
    const track = trackAt(y);
    if (!track || x < labelWidth) return hideTooltip();
    const t = timeOfX(x, rect.width);
    if (track.counter !== undefined) {
      const c = data.counters[track.counter];
      const value = counterValueAt(c, t);
      return showTooltip(event, 'counter ' + str(c.name) + (value === null ? ': no value yet' : ' = ' + value) +
          ' at ' + fmtAt(t));
    }
    if (track.process !== undefined) {
      const events = jitEventAt(track.process, x, rect.width);
      if (!events.length) return showTooltip(event, track.label + '\nJIT code loaded (green) and replaced (red) at +' + fmtSeconds(t));
      return showTooltip(event, events.slice(0, 12).map(([what, v]) => what + ': ' + versionName(v) + '\n  ' + describeVersion(v)).join('\n'));
    }
    const th = threads[track.thread];
    const things = threadThingsAt(th, t, y - track.y, 2 * durationUs / Math.max(1, rect.width - labelWidth));
    if (things.length) return showTooltip(event, things.join('\n'));
    const columns = Math.max(1, Math.floor(rect.width - labelWidth));
    const c = Math.min(columns - 1, Math.floor((x - labelWidth)));
    const count = densities(columns).perThread[track.thread][c] || 0;
    showTooltip(event, 'thread ' + th.tid + ' (' + (th.name || '?') + ') of pid ' + th.pid + '\n+' +
        fmtSeconds(t) + ': ' + count + ' samples in ' + fmtSeconds(durationUs / columns) +
        '\nclick its name to see it alone');
  });
  timelineCanvas.addEventListener('mouseleave', () => { if (!brush) hideTooltip(); });
  window.addEventListener('mouseup', () => {
    if (!brush) return;
    const width = timelineCanvas.getBoundingClientRect().width;
    const from = Math.min(brush[0], brush[1]);
    const to = Math.max(brush[0], brush[1]);
    brush = null;
    state.range = to - from < 3 ? null : [timeOfX(from, width), timeOfX(to, width)];
    applySelection();
  });
  document.getElementById('clear-selection').addEventListener('click', () => {
    state.range = null;
    state.soloThread = -1;
    applySelection();
  });

  let timelineFrame = 0;
  function requestTimelineDraw() {
    if (timelineFrame) return;
    timelineFrame = requestAnimationFrame(() => {
      timelineFrame = 0;
      drawTimeline();
    });
  }

  function describeSelection() {
    const parts = [];
    if (state.range) parts.push('+' + fmtSeconds(state.range[0]) + ' to +' + fmtSeconds(state.range[1]));
    if (state.soloThread >= 0) {
      const t = threads[state.soloThread];
      parts.push('thread ' + t.tid + ' (' + (t.name || '?') + ')');
    }
    const text = parts.length ? parts.join(', ') + ': ' + fmtInt(selectedTotal) + ' samples' :
        'all ' + fmtInt(selectedTotal) + ' samples';
    document.getElementById('selection').textContent = text;
    document.getElementById('clear-selection').disabled = !parts.length;
  }

  // ---- Putting it together --------------------------------------------------------------------
  function applySelection() {
    countSamples();
    sumView();
    updateSearch();
    describeSelection();
    drawTimeline();
    renderView();
  }

  function renderView() {
    if (state.view === 'flame') drawFlame();
    else if (state.view === 'tree') renderTree();
    else if (state.view === 'callers') renderCallers();
    else if (state.view === 'code') renderCode();
    else if (state.view === 'diff') renderDiffTable();
  }

  function selectView(name) {
    state.view = name;
    for (const b of document.querySelectorAll('nav#tabs > button')) {
      b.classList.toggle('active', b.dataset.view === name);
    }
    for (const s of document.querySelectorAll('main > .view')) s.hidden = s.id !== 'view-' + name;
    hideTooltip();
    renderView();
  }

  for (const b of document.querySelectorAll('nav#tabs > button')) {
    b.addEventListener('click', () => selectView(b.dataset.view));
  }

  let searchTimer = 0;
  document.getElementById('search').addEventListener('input', (event) => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      state.search = event.target.value;
      updateSearch();
      renderView();
    }, 120);
  });

  document.getElementById('grouping').addEventListener('change', (event) => {
    const callersLabel = state.callersKey >= 0 ? keys.label[state.callersKey] : null;
    state.grouping = event.target.value;
    buildView();
    sumView();
    updateSearch();
    fillFunctionNames();
    expandHotPath();
    state.callersKey = callersLabel === null ? -1 : keys.label.indexOf(callersLabel);
    renderView();
  });

  let resizeTimer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { densityCache = null; drawTimeline(); renderView(); }, 100);
  });

  // ---- The difference of two runs -------------------------------------------------------------
  function renderDiffTable() {
    const table = document.getElementById('diff-table');
    const rows = diff.functions;
    const fragment = document.createDocumentFragment();
    const head = el('tr');
    for (const h of ['Self base', 'Self new', 'Change', 'Total base', 'Total new', 'Change', 'Function', 'Module']) {
      head.appendChild(el('th', null, h));
    }
    fragment.appendChild(head);
    const pct = (x) => (100 * x).toFixed(2) + '%';
    for (let i = 0; i < rows.name.length; ++i) {
      const tr = el('tr');
      const selfChange = rows.self_new[i] - rows.self_base[i];
      const totalChange = rows.total_new[i] - rows.total_base[i];
      tr.appendChild(el('td', { class: 'num' }, pct(rows.self_base[i])));
      tr.appendChild(el('td', { class: 'num' }, pct(rows.self_new[i])));
      tr.appendChild(el('td', { class: 'num ' + (selfChange > 0 ? 'delta-up' : selfChange < 0 ? 'delta-down' : '') }, signedPoints(selfChange)));
      tr.appendChild(el('td', { class: 'num' }, pct(rows.total_base[i])));
      tr.appendChild(el('td', { class: 'num' }, pct(rows.total_new[i])));
      tr.appendChild(el('td', { class: 'num ' + (totalChange > 0 ? 'delta-up' : totalChange < 0 ? 'delta-down' : '') }, signedPoints(totalChange)));
      tr.appendChild(el('td', { class: 'name' }, str(rows.name[i])));
      tr.appendChild(el('td', null, str(rows.module[i])));
      fragment.appendChild(tr);
    }
    table.replaceChildren(fragment);
  }

  // ---- First paint ----------------------------------------------------------------------------
  document.getElementById('title').textContent = data.title;
  document.getElementById('summary').textContent = data.summary;
  const warnings = document.getElementById('warnings');
  for (const w of data.warnings) warnings.appendChild(el('li', null, w));
  if (diff) {
    document.querySelector('nav#tabs > button[data-view="code"]').hidden = true;
    const tab = el('button', { type: 'button', 'data-view': 'diff' }, 'Changes by function');
    document.querySelector('nav#tabs > button[data-view="callers"]').after(tab);
    tab.addEventListener('click', () => selectView('diff'));
    document.getElementById('diff-legend').textContent = 'red: a larger share than in the base run, blue: a smaller one';
    document.getElementById('timeline-panel').hidden = true;
  }
  if (!code.length) document.querySelector('nav#tabs > button[data-view="code"]').hidden = true;
  buildView();
  countSamples();
  sumView();
  describeSelection();
  fillFunctionNames();
  expandHotPath();
  drawTimeline();
  drawFlame();
  renderCallers();
})();
