// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// Drives Debian's Chromium, headless, through playwright-core, as the browser tests' C++ side
// asks (tests/report/browser_e2e_test.cc): opens a page from a file, does what a person does, and
// prints what a person would see as one JSON object on stdout, for the test to compare exactly.
//
// What is seen is recorded without the page's help:
//  - every console message and page error, and every request the page makes (a report that is
//    one self-contained file makes none but the file itself);
//  - what the page draws on its canvases: fillText and fillRect are wrapped before the page's
//    script runs, so a test knows which names were drawn where, in which colour.
// Chromium's flags are those that work on a machine without a network: no background
// networking, no component updates, a fresh profile directory (playwright's own).
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const require = createRequire(import.meta.url);

// playwright-core from tests/browser/node_modules, installed by scripts/setup (npm ci).
export function loadPlaywright() {
  try {
    return require(path.join(here, 'node_modules', 'playwright-core'));
  } catch (error) {
    throw new Error(`playwright-core is not installed in ${here}/node_modules: run scripts/setup ` +
                    `(npm ci there) (${error.message})`);
  }
}

export async function openBrowser(chromiumPath) {
  if (!chromiumPath || !fs.existsSync(chromiumPath)) {
    throw new Error(`no Chromium at '${chromiumPath}': scripts/setup installs Debian's chromium`);
  }
  const { chromium } = loadPlaywright();
  // playwright starts Chromium with a new, empty profile directory of its own, and removes it.
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}

// Runs before any script of the page: records the canvas drawing calls per canvas id, in the order
// they happen; a test clears the log before the action it looks at.
const recordDrawing = () => {
  window.__drawn = [];
  const proto = CanvasRenderingContext2D.prototype;
  const fillText = proto.fillText;
  const fillRect = proto.fillRect;
  const where = (ctx, x, y) => {
    // Canvas coordinates as CSS pixels of the page: the transform's scale is undone.
    const m = ctx.getTransform();
    const rect = ctx.canvas.getBoundingClientRect();
    const ratio = ctx.canvas.width / Math.max(1, rect.width);
    return { x: (m.a * x + m.e) / ratio, y: (m.d * y + m.f) / ratio };
  };
  proto.fillText = function (text, x, y, ...rest) {
    const p = where(this, x, y);
    window.__drawn.push({ op: 'text', canvas: this.canvas.id, text: String(text), x: p.x, y: p.y,
                          style: String(this.fillStyle) });
    return fillText.call(this, text, x, y, ...rest);
  };
  proto.fillRect = function (x, y, w, h) {
    const p = where(this, x, y);
    const m = this.getTransform();
    const rect = this.canvas.getBoundingClientRect();
    const ratio = this.canvas.width / Math.max(1, rect.width);
    window.__drawn.push({ op: 'rect', canvas: this.canvas.id, x: p.x, y: p.y, w: m.a * w / ratio,
                          h: m.d * h / ratio, style: String(this.fillStyle) });
    return fillRect.call(this, x, y, w, h);
  };
};

// A page opened from `file`, with what it logs and requests recorded.
export async function openPage(session, file, viewport = { width: 1400, height: 900 }) {
  const context = await session.browser.newContext({ viewport });
  const page = await context.newPage();
  const seen = { console: [], errors: [], requests: [] };
  page.on('console', (m) => seen.console.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => seen.errors.push(e.message));
  page.on('request', (r) => seen.requests.push(r.url()));
  await page.addInitScript(recordDrawing);
  await page.goto('file://' + path.resolve(file), { waitUntil: 'load' });
  return { page, seen };
}

// The drawing calls since the last clear, and clears them.
export async function takeDrawing(page) {
  return page.evaluate(() => {
    const drawn = window.__drawn;
    window.__drawn = [];
    return drawn;
  });
}

// Runs `main` and prints its result, or the error, as JSON; exits 0 only when it finished.
export async function run(main) {
  try {
    const result = await main();
    process.stdout.write(JSON.stringify(result) + '\n');
  } catch (error) {
    process.stdout.write(JSON.stringify({ failure: String(error && error.stack || error) }) + '\n');
    process.exitCode = 1;
  }
}

// --name value pairs.
export function parseArguments(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--')) throw new Error(`unexpected argument '${argv[i]}'`);
    args[argv[i].slice(2)] = argv[i + 1];
  }
  return args;
}
