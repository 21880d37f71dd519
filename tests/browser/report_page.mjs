// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// One thing a person does with the page `jitscope report --format html` wrote, and what they
// then see, as JSON (driver.mjs says how it is seen):
//   node report_page.mjs --chromium PATH --page FILE --do ACTION [--name FUNCTION]
// ACTION:
//   look     open it: the boxes the flame graph drew (label, place, colour) and the texts shown
//   search   type FUNCTION into Search: what it says it matched, and the boxes drawn after
//   zoom     click FUNCTION's widest box: the boxes drawn after, and what the graph says
//   brush    drag across the first half of the timeline: the selection, and the graph's totals
//   events   point at each JIT event the timeline drew: the marks, and the tooltip of each
//   jit      point at each JIT event drawn on a thread's track: its kind, and its tooltip
//   timeline point at the middle of each ITT slice, marker, counter step and period off the CPU
//            the timeline drew: each with its place and its tooltip, and the texts drawn there
//   callers  open the call tree, click FUNCTION's name: the callers and callees listed
//   code     open Code, show FUNCTION, choose its first version: the instructions listed
//   diff     merge the JIT versions (tiers), then open "Changes by function": the boxes drawn
//            merged and the table's rows
// Every answer also has what the page logged, the errors it raised and the requests it made.
import { openBrowser, openPage, parseArguments, run, takeDrawing } from './driver.mjs';

const args = parseArguments(process.argv.slice(2));

// The flame graph's boxes from the drawing log: each fillRect on #flame, with the label drawn in
// it (a fillText at its left edge, in its row), as a person reads them.
function boxes(drawn) {
  const rects = drawn.filter((d) => d.canvas === 'flame' && d.op === 'rect');
  const texts = drawn.filter((d) => d.canvas === 'flame' && d.op === 'text');
  return rects.map((r) => {
    const label = texts.find((t) => Math.abs(t.x - (r.x + 3)) < 0.01 && t.y > r.y && t.y < r.y + r.h);
    return { label: label ? label.text : '', x: r.x, y: r.y, w: r.w, h: r.h, colour: r.style };
  });
}

// Where on the page a point of the flame canvas is, and whether it is in sight.
async function flamePoint(page, x, y) {
  return page.evaluate(([px, py]) => {
    const canvas = document.getElementById('flame').getBoundingClientRect();
    const scroll = document.getElementById('flame-scroll').getBoundingClientRect();
    const pageX = canvas.left + px;
    const pageY = canvas.top + py;
    return { x: pageX, y: pageY,
             visible: pageY >= scroll.top && pageY <= scroll.bottom && pageY <= window.innerHeight &&
                      pageX >= 0 && pageX <= window.innerWidth };
  }, [x, y]);
}

const text = (page, selector) => page.locator(selector).first().innerText();

async function tableRows(page, selector) {
  return page.$$eval(selector + ' tbody tr', (rows) => rows.map((tr) => {
    const name = tr.querySelector('.fn');
    const cells = Array.from(tr.querySelectorAll('td')).map((td) => td.innerText);
    return { name: name ? name.innerText : '', cells };
  }));
}

run(async () => {
  const session = await openBrowser(args.chromium);
  try {
    const { page, seen } = await openPage(session, args.page);
    const answer = { title: await text(page, '#title'), summary: await text(page, '#summary') };
    const drawn = await takeDrawing(page);
    const first = boxes(drawn);
    const widest = (list, name) => list.filter((b) => b.label === name).sort((a, b) => b.w - a.w)[0];
    switch (args.do) {
      case 'look': {
        answer.boxes = first;
        const series = widest(first, args.name);
        answer.named = series ? await flamePoint(page, series.x + 3, series.y + series.h / 2) : null;
        answer.flameTotal = await text(page, '#flame-total');
        answer.selection = await text(page, '#selection');
        break;
      }
      case 'search': {
        await page.fill('#search', args.name);
        await page.waitForFunction(() => document.getElementById('matched').textContent !== '');
        answer.matched = await text(page, '#matched');
        answer.boxes = boxes(await takeDrawing(page));
        break;
      }
      case 'zoom': {
        const box = widest(first, args.name);
        if (!box) throw new Error(`no box labelled '${args.name}' was drawn`);
        const point = await flamePoint(page, box.x + box.w / 2, box.y + 8);
        await page.mouse.click(point.x, point.y);
        answer.clicked = box;
        answer.boxes = boxes(await takeDrawing(page));
        answer.flameTotal = await text(page, '#flame-total');
        break;
      }
      case 'brush': {
        answer.before = { flameTotal: await text(page, '#flame-total'), selection: await text(page, '#selection') };
        const canvas = await page.locator('#timeline').boundingBox();
        const left = canvas.x + 170;  // the tracks start right of the threads' names
        const y = canvas.y + canvas.height - 6;
        await page.mouse.move(left + 2, y);
        await page.mouse.down();
        await page.mouse.move(left + (canvas.width - 170) / 2, y, { steps: 5 });
        await page.mouse.up();
        answer.selection = await text(page, '#selection');
        answer.flameTotal = await text(page, '#flame-total');
        answer.boxes = boxes(await takeDrawing(page));
        break;
      }
      case 'events': {
        // The loads (green) and ends (red) of JIT code, drawn on the processes' rows.
        const colours = { '#2a9d3a': 'loaded', '#c0392b': 'replaced' };
        const marks = drawn.filter((d) => d.canvas === 'timeline' && d.op === 'rect' && colours[d.style]);
        const canvas = await page.locator('#timeline').boundingBox();
        answer.marks = [];
        for (const m of marks) {
          await page.mouse.move(canvas.x + m.x + m.w / 2, canvas.y + m.y + m.h / 2);
          answer.marks.push({ x: m.x, what: colours[m.style], tooltip: await text(page, '#tooltip') });
        }
        break;
      }
      case 'timeline': {
        const kinds = { '#8cc084': 'slice', '#8e44ad': 'marker', '#e67e22': 'counter' };
        // The bands off the CPU, by why (the page's colours).
        const why = { '#e8a8a8': 'preempted', '#a8c8ec': 'sleeping', '#f0c27a': 'lock', '#c8a8e8': 'I/O',
                      '#9ed8c0': 'poll', '#cfcfcf': 'waiting' };
        const onTimeline = drawn.filter((d) => d.canvas === 'timeline');
        answer.texts = onTimeline.filter((d) => d.op === 'text').map((d) => ({ text: d.text, x: d.x, y: d.y }));
        const canvas = await page.locator('#timeline').boundingBox();
        answer.shapes = [];
        for (const r of onTimeline.filter((d) => d.op === 'rect' && (kinds[d.style] || why[d.style]))) {
          const shape = { kind: kinds[r.style] || 'off-cpu ' + why[r.style], x: r.x, y: r.y, w: r.w, h: r.h };
          // A band off the CPU narrower than 3 px (a busy machine preempts often) is not pointed at.
          if (kinds[r.style] || r.w >= 3) {
            await page.mouse.move(canvas.x + r.x + r.w / 2, canvas.y + r.y + r.h / 2);
            shape.tooltip = await text(page, '#tooltip');
          }
          answer.shapes.push(shape);
        }
        break;
      }
      case 'jit': {
        // The JIT engine's events on the threads' tracks, by kind (the page's colours).
        const kinds = { '#27ae60': 'load', '#16a085': 'new version', '#d4ac0d': 'update', '#922b21': 'unload',
                        '#7f8c8d': 'move' };
        const canvas = await page.locator('#timeline').boundingBox();
        answer.marks = [];
        for (const m of drawn.filter((d) => d.canvas === 'timeline' && d.op === 'rect' && kinds[d.style])) {
          await page.mouse.move(canvas.x + m.x + m.w / 2, canvas.y + m.y + m.h / 2);
          answer.marks.push({ x: m.x, what: kinds[m.style], tooltip: await text(page, '#tooltip') });
        }
        break;
      }
      case 'callers': {
        await page.click('nav#tabs > button[data-view="tree"]');
        await page.locator('#tree .fn', { hasText: args.name }).first().click();
        answer.summary = await text(page, '#callers-summary');
        answer.function = await page.inputValue('#callers-function');
        answer.callers = await tableRows(page, '#callers');
        answer.callees = await tableRows(page, '#callees');
        break;
      }
      case 'code': {
        await page.click('nav#tabs > button[data-view="code"]');
        await page.fill('#code-filter', args.name);
        await page.locator('#code-list tr.version').first().click();
        answer.heading = await text(page, '#code-detail h2');
        answer.header = await page.$$eval('#code-detail div.hint', (d) => d.map((x) => x.innerText));
        answer.rows = await page.$$eval('#code-detail table.code tr', (rows) => rows.slice(1).map((tr) => ({
          kind: tr.className || 'instruction',
          cells: Array.from(tr.querySelectorAll('td')).map((td) => td.innerText),
        })));
        break;
      }
      case 'diff': {
        answer.legend = await text(page, '#diff-legend');
        await page.selectOption('#grouping', 'merged');
        answer.boxes = boxes(await takeDrawing(page));
        await page.click('nav#tabs > button[data-view="diff"]');
        answer.rows = await page.$$eval('#diff-table tr', (rows) => rows.map((tr) =>
          Array.from(tr.querySelectorAll('td,th')).map((td) => td.innerText)));
        break;
      }
      default:
        throw new Error(`unknown --do '${args.do}'`);
    }
    answer.console = seen.console;
    answer.errors = seen.errors;
    answer.requests = seen.requests;
    return answer;
  } finally {
    await session.close();
  }
});
