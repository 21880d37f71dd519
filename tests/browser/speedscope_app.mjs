// Copyright 2026 The jitscope Authors. SPDX-License-Identifier: Apache-2.0
//
// `jitscope report --format speedscope` opened in the real speedscope app (npm's speedscope,
// its release page from tests/browser/node_modules, offline) as a person opens it: "Browse", the
// file chosen, then the Sandwich view. Prints what the page then shows, as JSON:
//   node speedscope_app.mjs --chromium PATH --profile FILE
// {title: the profile's name in the toolbar, rows: the Sandwich table's rows (each its cells),
//  errors, console (errors only: its WebGL driver's performance notes are not ours), requests
//  (other than the app's own files)}.
import path from 'node:path';
import { openBrowser, openPage, parseArguments, run } from './driver.mjs';

const args = parseArguments(process.argv.slice(2));
const here = path.dirname(new URL(import.meta.url).pathname);
const app = path.join(here, 'node_modules', 'speedscope', 'dist', 'release', 'index.html');

run(async () => {
  const session = await openBrowser(args.chromium);
  try {
    const { page, seen } = await openPage(session, app);
    await page.locator('input[type=file]').setInputFiles(args.profile);
    // The view's toolbar names the profile once it is imported.
    await page.getByText('Sandwich').first().waitFor();
    const toolbar = await page.locator('body').innerText();
    await page.getByText('Sandwich').first().click();
    await page.locator('table').first().waitFor();
    const rows = await page.$$eval('table tr', (trs) => trs.map((tr) =>
      Array.from(tr.querySelectorAll('td,th')).map((td) => td.innerText.trim())));
    const own = 'file://' + path.dirname(app) + '/';
    return {
      toolbar: toolbar.split('\n').map((l) => l.trim()).filter((l) => l),
      rows,
      errors: seen.errors,
      console: seen.console.filter((m) => m.startsWith('error')),
      requests: seen.requests.filter((url) => !url.startsWith(own)),
    };
  } finally {
    await session.close();
  }
});
