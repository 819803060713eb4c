// Drives the `sense serve` console in headless Debian Chromium: lists the
// fleet's instances by status, opens a paused one (call stack, question),
// answers it, and checks the answer landed; then starts a `writer`, answers
// it, and sees its model's streamed answer appear (pieces arrive only on
// the events stream: the program neither prints nor keeps them).
//
//   node console.mjs URL ARTIFACT_DIR PLAYWRIGHT_CORE_DIR
//
// tests/serve_browser.rs starts two `sense serve` processes on one store,
// creates instances through one of them, and runs this script against the
// other. playwright-core comes from tests/browser/node_modules (the
// inspector's browser test installs it). Exits non-zero on the first
// failure, after a screenshot.

import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [url, artifacts, playwrightDir] = process.argv.slice(2);
if (!url || !artifacts || !playwrightDir) {
  console.error('usage: node console.mjs URL ARTIFACT_DIR PLAYWRIGHT_CORE_DIR');
  process.exit(2);
}
const { chromium } = await import(pathToFileURL(join(playwrightDir, 'index.mjs')).href);
mkdirSync(artifacts, { recursive: true });
// The Rust side finds Chromium (SENSE_CHROMIUM or PATH) and passes its path.
const executablePath = process.env.SENSE_CHROMIUM;
if (!executablePath) throw new Error('SENSE_CHROMIUM is not set (the test harness sets it)');
const WAIT = 10_000;

function check(cond, what) {
  if (!cond) throw new Error('check failed: ' + what);
}

const profile = mkdtempSync(join(tmpdir(), 'sense-serve-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath,
  headless: true,
  viewport: { width: 1280, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
});
const page = context.pages()[0] || (await context.newPage());
const problems = [];
page.on('pageerror', (e) => problems.push('page error: ' + e.message));

const rows = () => page.locator('#instances tbody tr');
async function rowCount(n) {
  await page.waitForFunction((n) => document.querySelectorAll('#instances tbody tr').length === n, n, { timeout: WAIT });
}

let failed = false;
try {
  console.log('- the console lists paused instances by default');
  await page.goto(url, { waitUntil: 'load' });
  await rowCount(2);
  await page.locator('#program').filter({ hasText: 'fleet.sns' }).waitFor({ timeout: WAIT });
  console.log('- the status filter');
  await page.selectOption('#status', 'completed');
  await rowCount(1);
  await page.selectOption('#status', 'all');
  await rowCount(3);
  await page.selectOption('#status', 'paused');
  await rowCount(2);
  await page.screenshot({ path: join(artifacts, 'serve-01-list.png') });

  console.log('- open a paused instance');
  await rows().first().locator('a').click();
  await page.locator('#d-reason').filter({ hasText: '(1/3) name?' }).waitFor({ timeout: WAIT });
  const frames = await page.locator('#d-frames').textContent();
  check(frames.includes('at ask'), 'the call stack shows ask(): ' + frames);
  check(frames.includes('topic = "name"'), 'the locals show topic: ' + frames);

  console.log('- answer it');
  await page.fill('#value', '"Ada"');
  await page.click('#resume');
  await page.locator('#d-reason').filter({ hasText: '(2/3) years?' }).waitFor({ timeout: WAIT });
  await page.locator('#d-audit').filter({ hasText: 'resumed' }).waitFor({ timeout: WAIT });
  await page.screenshot({ path: join(artifacts, 'serve-02-answered.png'), fullPage: true });

  console.log('- a streamed answer appears live');
  await page.fill('#agent', 'writer');
  await page.click('#start');
  await page.locator('#d-reason').filter({ hasText: '"ready"' }).waitFor({ timeout: WAIT });
  // The page follows the instance's events stream before it is answered.
  await page.waitForFunction(() => document.querySelector('#d-live').dataset.open === document.querySelector('#d-id').textContent, null, { timeout: WAIT });
  check((await page.locator('#d-live').textContent()) === '', 'no text before the answer');
  await page.fill('#value', '"Oslo"');
  await page.click('#resume');
  await page.locator('#d-live').filter({ hasText: '(mock reasoning about: the weather in Oslo)' }).waitFor({ timeout: WAIT });
  await page.locator('#d-reason').filter({ hasText: '"done"' }).waitFor({ timeout: WAIT });
  await page.screenshot({ path: join(artifacts, 'serve-03-streamed.png'), fullPage: true });
  check(problems.length === 0, problems.join('; '));
} catch (e) {
  failed = true;
  console.error('FAILED: ' + e.message);
  await page.screenshot({ path: join(artifacts, 'serve-failure.png'), fullPage: true }).catch(() => {});
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
