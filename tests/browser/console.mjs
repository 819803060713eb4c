// Drives the `sense inspect` console in headless Debian Chromium, the way a
// person would: sees a paused agent, calls tools, takes an action through
// prepare → verify → approve → commit while the audit log grows, answers
// the agent until it completes, rolls the action back. Saves screenshots.
//
//   node console.mjs URL ARTIFACT_DIR
//
// tests/browser.rs starts `sense inspect tests/browser/demo.sns --port 0`
// and runs this script against it. Exits non-zero on the first failure
// (after a screenshot of the page as it was).

import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [url, artifacts] = process.argv.slice(2);
if (!url || !artifacts) {
  console.error('usage: node console.mjs URL ARTIFACT_DIR');
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });
// The Rust side finds Chromium (SENSE_CHROMIUM or PATH) and passes its path.
const executablePath = process.env.SENSE_CHROMIUM;
if (!executablePath) throw new Error('SENSE_CHROMIUM is not set (the test harness sets it)');
const WAIT = 10_000;

let step = 'start';
function log(text) {
  step = text;
  console.log('- ' + text);
}
function check(cond, what) {
  if (!cond) throw new Error('check failed: ' + what);
}

const profile = mkdtempSync(join(tmpdir(), 'sense-inspect-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath,
  headless: true,
  viewport: { width: 1440, height: 1000 },
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const page = context.pages()[0] || (await context.newPage());
const problems = [];
page.on('pageerror', (e) => problems.push('page error: ' + e.message));
page.on('console', (m) => {
  // The API's expected 4xx answers (a policy denial, a bad literal) are
  // logged by Chromium as failed resource loads; anything else counts.
  if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) {
    problems.push('console error: ' + m.text());
  }
});

const shot = async (name, fullPage = false) => {
  const path = join(artifacts, name);
  await page.screenshot({ path, fullPage });
  console.log('  screenshot ' + path);
};

const agent = (name) => page.locator(`[data-agent="${name}"]`);
const status = (name) => agent(name).locator('.status');
const auditRows = () => page.locator('#audit tbody tr');
async function waitText(locator, text) {
  await locator.filter({ hasText: text }).first().waitFor({ timeout: WAIT });
}

let failed = false;
try {
  log('load the console');
  await page.goto(url, { waitUntil: 'load' });
  await page.locator('#live.on').waitFor({ timeout: WAIT });
  await waitText(status('interviewer'), 'paused');
  await waitText(agent('interviewer').locator('.question'), '(1/2) who is releasing?');
  check((await agent('interviewer').locator('.frame').count()) >= 2, 'the call stack shows two frames');
  await waitText(agent('interviewer').locator('.frame .where').first(), 'ask');
  await waitText(agent('interviewer').locator('table.locals').first(), '"who is releasing"');
  await waitText(status('nightly'), 'created');
  await shot('01-paused-agent.png');

  log('call a tool that policy allows');
  const health = page.locator('[data-tool="health"]');
  await health.locator('input').first().fill('"web-1"');
  await health.getByRole('button', { name: 'Call' }).click();
  await waitText(health.locator('.result'), '→ true');

  log('call a tool that policy denies');
  const fetchTool = page.locator('[data-tool="fetch"]');
  await waitText(fetchTool.locator('.policy'), 'denied');
  await fetchTool.locator('input').first().fill('"https://example.invalid/"');
  await fetchTool.getByRole('button', { name: 'Call' }).click();
  await waitText(fetchTool.locator('.result.error'), 'SensePolicyError');

  log('a bad literal is refused with a hint');
  const add = page.locator('[data-tool="add"]');
  await add.locator('input').nth(0).fill('2');
  await add.locator('input').nth(1).fill('forty');
  await add.getByRole('button', { name: 'Call' }).click();
  await waitText(add.locator('.result.error'), 'Sense literal');
  await add.locator('input').nth(1).fill('40');
  await add.getByRole('button', { name: 'Call' }).click();
  await waitText(add.locator('.result'), '→ 42');

  log('prepare an action');
  const auditBefore = await auditRows().count();
  const deploy = page.locator('[data-action="deploy"]');
  await deploy.locator('input').nth(0).fill('"v2.1"');
  await deploy.locator('input').nth(1).fill('["web-1", "web-2"]');
  await deploy.getByRole('button', { name: 'Prepare' }).click();
  const row = page.locator('tr[data-instance]').last();
  await waitText(row.locator('.status'), 'prepared');
  const id = await row.getAttribute('data-instance');
  const inst = page.locator(`tr[data-instance="${id}"]`);

  for (const [button, state] of [['Verify', 'verified'], ['Approve', 'verified'], ['Commit', 'committed']]) {
    log(`${button.toLowerCase()} instance #${id}`);
    await inst.getByRole('button', { name: button }).click();
    await waitText(inst.locator('.status'), state);
  }
  await waitText(inst, 'approved');
  await waitText(page.locator('#audit'), 'committed');
  const auditAfter = await auditRows().count();
  check(auditAfter >= auditBefore + 3, `the audit log grew (${auditBefore} → ${auditAfter})`);
  await waitText(page.locator('#output'), 'deployed v2.1 to 2 hosts');
  await shot('02-action-committed.png');
  // The whole page once the notifications have faded (docs/inspector.png).
  await page.locator('.toast').last().waitFor({ state: 'detached', timeout: WAIT });
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot('03-overview-full.png', true);

  log('answer the paused agent with a literal');
  const answer = agent('interviewer').locator('input.answer');
  await answer.fill('"Ada"');
  await agent('interviewer').getByRole('button', { name: 'Resume' }).click();
  await waitText(agent('interviewer').locator('.question'), '(2/2) which version?');
  check((await answer.inputValue()) === '', 'the answer box is cleared after a resume');

  log('answer it again as plain text');
  await agent('interviewer').locator('select').selectOption('text');
  await answer.fill('v2.1');
  await agent('interviewer').getByRole('button', { name: 'Resume' }).click();
  await waitText(status('interviewer'), 'completed');
  await waitText(page.locator('#output'), 'release of v2.1 by Ada noted');
  await waitText(page.locator('[data-memory="notes"]'), '["Ada", "v2.1"]');

  log('start the created agent');
  await agent('nightly').getByRole('button', { name: 'Start' }).click();
  await waitText(status('nightly'), 'completed');
  await waitText(page.locator('#output'), 'nightly job ran');

  log('roll the action back');
  await inst.getByRole('button', { name: 'Rollback' }).click();
  await waitText(inst.locator('.status'), 'rolled back');
  await waitText(page.locator('#audit'), 'rolled_back');
  check((await auditRows().count()) > auditAfter, 'the rollback is audited');
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot('04-agent-completed.png', true);

  check(problems.length === 0, 'no errors in the page: ' + problems.join('; '));
  console.log('browser test passed: ' + (await auditRows().count()) + ' audit entries');
} catch (e) {
  failed = true;
  console.error(`FAILED at "${step}": ${e.message}`);
  if (problems.length) console.error(problems.join('\n'));
  try {
    await shot('failure.png', true);
  } catch (e2) {
    console.error('no failure screenshot: ' + e2.message);
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
