// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// How fast a report is to look at in headless Chromium (bench/html_report runs it): prints one
// JSON object of milliseconds, measured in the page with performance.now() (its origin is the
// navigation's start).
//   node bench/html_page.mjs --chromium PATH --page FILE.html --rounds N
//     first_draw: the navigation's start to the flame graph's first box drawn;
//     first_paint: ... to the frame after it (the box on the screen);
//     zoom, unzoom: a click on a box to the frame after the graph is redrawn, and back (medians);
//     filter, unfilter: a time range dragged on the timeline (a mouseup) to the frame after every
//       count is redone and the graph redrawn, and the range cleared (medians);
//     regroup: "JIT versions" changed to merged, then back (median of both).
//   node bench/html_page.mjs --chromium PATH --svg FILE.svg --rounds N
//     load: the navigation's start to the end of the load event (the document parsed, its
//       script run); zoom: a click on a box to the frame after (median).
//   node bench/html_page.mjs --chromium PATH --speedscope FILE.json
//     import: what the speedscope app says its import of the file took; shown: choosing the file
//       (through playwright) to the frame after its view is shown.
import path from 'node:path';
import { openBrowser, parseArguments, run } from '../tests/browser/driver.mjs';

const args = parseArguments(process.argv.slice(2));
const rounds = Number(args.rounds || 5);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : null;
};

// Runs before the page's script: the time of the first box drawn on #flame, and of the frame
// after it.
const watchFirstDraw = () => {
  const fillRect = CanvasRenderingContext2D.prototype.fillRect;
  CanvasRenderingContext2D.prototype.fillRect = function (...rest) {
    if (window.__firstDraw === undefined && this.canvas.id === 'flame') {
      window.__firstDraw = performance.now();
      requestAnimationFrame(() => setTimeout(() => { window.__firstPaint = performance.now(); }, 0));
    }
    return fillRect.apply(this, rest);
  };
};

// In the page: runs `act`, then waits for the next frame; the milliseconds in between.
const timeToFrame = async (page, act, arg) => page.evaluate(async ([source, a]) => {
  const fn = new Function('a', source);
  const t0 = performance.now();
  fn(a);
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  return performance.now() - t0;
}, [act, arg]);

async function measureHtml(session, file) {
  const context = await session.browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(watchFirstDraw);
  await page.goto('file://' + path.resolve(file), { waitUntil: 'load', timeout: 120000 });
  await page.waitForFunction(() => window.__firstPaint !== undefined, null, { timeout: 120000 });
  const [firstDraw, firstPaint] = await page.evaluate(() => [window.__firstDraw, window.__firstPaint]);
  const zoom = [], unzoom = [], filter = [], unfilter = [], regroup = [];
  for (let i = 0; i < rounds; ++i) {
    // A box a few rows above the root, in the flame graph's middle: its y from the bottom.
    zoom.push(await timeToFrame(page, `
      const canvas = document.getElementById('flame');
      const r = canvas.getBoundingClientRect();
      const y = r.bottom - 17 * (2 + a % 3) - 8;
      canvas.dispatchEvent(new MouseEvent('click', { clientX: r.left + r.width / 2, clientY: y, bubbles: true }));`, i));
    unzoom.push(await timeToFrame(page, `document.getElementById('reset-zoom').click();`, i));
    filter.push(await timeToFrame(page, `
      const canvas = document.getElementById('timeline');
      const r = canvas.getBoundingClientRect();
      const left = r.left + 170, width = r.width - 170, y = r.bottom - 6;
      const from = left + width * (0.1 + 0.05 * (a % 4)), to = left + width * (0.6 + 0.05 * (a % 4));
      canvas.dispatchEvent(new MouseEvent('mousedown', { clientX: from, clientY: y, bubbles: true }));
      window.dispatchEvent(new MouseEvent('mousemove', { clientX: to, clientY: y, bubbles: true }));
      window.dispatchEvent(new MouseEvent('mouseup', { clientX: to, clientY: y, bubbles: true }));`, i));
    unfilter.push(await timeToFrame(page, `document.getElementById('clear-selection').click();`, i));
    for (const value of ['merged', 'tier']) {
      regroup.push(await timeToFrame(page, `
        const select = document.getElementById('grouping');
        select.value = a;
        select.dispatchEvent(new Event('change'));`, value));
    }
  }
  const selection = await page.locator('#selection').innerText();
  await context.close();
  return { first_draw: firstDraw, first_paint: firstPaint, zoom: median(zoom), unzoom: median(unzoom),
           filter: median(filter), unfilter: median(unfilter), regroup: median(regroup),
           zoom_max: Math.max(...zoom), filter_max: Math.max(...filter), errors, selection };
}

async function measureSvg(session, file) {
  const context = await session.browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.goto('file://' + path.resolve(file), { waitUntil: 'load', timeout: 120000 });
  const load = await page.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventEnd);
  const zoom = [];
  for (let i = 0; i < rounds; ++i) {
    zoom.push(await timeToFrame(page, `
      const frames = document.querySelectorAll('#frames > g');
      frames[1 + a % Math.max(1, Math.min(3, frames.length - 1))].dispatchEvent(new MouseEvent('click', { bubbles: true }));`, i));
  }
  await context.close();
  return { load, zoom: median(zoom) };
}

async function measureSpeedscope(session, file) {
  const here = path.dirname(new URL(import.meta.url).pathname);
  const app = path.join(here, '..', 'tests', 'browser', 'node_modules', 'speedscope', 'dist', 'release',
                        'index.html');
  const context = await session.browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  // speedscope times its own import ("console.timeEnd('import')").
  let imported = null;
  page.on('console', (m) => {
    const said = /^import: ([\d.]+) ?ms/.exec(m.text());
    if (said) imported = Number(said[1]);
  });
  await page.goto('file://' + app, { waitUntil: 'load' });
  const t0 = await page.evaluate(() => performance.now());
  await page.locator('input[type=file]').setInputFiles(file);
  await page.getByText('Sandwich').first().waitFor({ timeout: 300000 });
  const shown = await page.evaluate(() => new Promise((resolve) =>
    requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0))));
  await context.close();
  return { import: imported, shown: shown - t0 };
}

run(async () => {
  const session = await openBrowser(args.chromium);
  try {
    if (args.page) return await measureHtml(session, args.page);
    if (args.svg) return await measureSvg(session, args.svg);
    if (args.speedscope) return await measureSpeedscope(session, args.speedscope);
    throw new Error('give --page, --svg or --speedscope');
  } finally {
    await session.close();
  }
});
