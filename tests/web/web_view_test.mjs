// Drives Debian's chromium (through playwright-core) over the web view of a running
// `kueuepp standalone`: the pages render the queueing objects, a Job admitted while the
// page is open shows up without a reload, a pending one is listed in its queue, and the
// browser logs no console error. Screenshots go to the artifact directory.
//
// usage: node web_view_test.mjs URL ARTIFACT_DIR CREATE_JOB_COMMAND...
//   CREATE_JOB_COMMAND NAME CPUS creates a Job of one pod asking for CPUS CPUs.
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';

const [url, artifacts, ...createJob] = process.argv.slice(2);
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const deadline = 30_000;  // generous: the page updates within about a second of a change

function create(name, cpus) {
  execFileSync(createJob[0], [...createJob.slice(1), name, String(cpus)], { stdio: 'inherit' });
}

const consoleErrors = [];
const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
let failed = false;
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('console', m => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', e => consoleErrors.push(String(e)));

  // The cohort trees: the ClusterQueue with its quota, and the event stream connected.
  await page.goto(url + '/');
  const row = page.locator('tr[data-cq="cluster-queue"]');
  await row.waitFor({ timeout: deadline });
  await page.locator('#live.on').waitFor({ timeout: deadline });
  const admittedCell = row.locator('td').nth(4);
  const before = Number(await admittedCell.textContent());
  const nominal = await row.locator('td').nth(7).textContent();
  if (nominal.trim() !== '9') throw new Error(`nominal cpu quota shown as "${nominal}", want 9`);
  await page.evaluate(() => { window.__sameDocument = true; });
  await page.screenshot({ path: `${artifacts}/overview.png`, fullPage: true });

  // A Job admitted now appears without a reload.
  create('admitted-during-test', 3);
  await page.waitForFunction(n => Number(document.querySelector('tr[data-cq="cluster-queue"] td:nth-child(5)').textContent) > n,
                             before, { timeout: deadline });
  if (!(await page.evaluate(() => window.__sameDocument === true))) throw new Error('the page was reloaded');
  await page.screenshot({ path: `${artifacts}/overview-after-admission.png`, fullPage: true });

  // The queue's page lists a Job that does not fit, with its reason, as it arrives.
  await page.evaluate(() => { location.hash = '#/clusterqueue/cluster-queue'; });
  await page.locator('h3', { hasText: 'Pending workloads' }).waitFor({ timeout: deadline });
  create('pending-during-test', 3);
  const pending = page.locator('tr[data-workload^="default/job-pending-during-test-"]');
  await pending.waitFor({ timeout: deadline });
  await page.locator('tr[data-workload^="default/job-pending-during-test-"] td.reason:not(:empty)').waitFor({ timeout: deadline });
  if (!(await page.evaluate(() => window.__sameDocument === true))) throw new Error('the page was reloaded');
  // The charts: the latest sample's dot is drawn even when the queue has one sample only
  // (a line of one sample has no length, and a browser does not count it as visible).
  await page.locator('.chart svg circle').first().waitFor({ timeout: deadline });
  await page.screenshot({ path: `${artifacts}/cluster-queue.png`, fullPage: true });

  // The workload's page: its state, reason and history.
  await pending.locator('a').click();
  await page.locator('h3', { hasText: 'History' }).waitFor({ timeout: deadline });
  await page.locator('td', { hasText: 'Created' }).first().waitFor({ timeout: deadline });
  // The pending reason the controller wrote, noted in the history as it was written.
  await page.locator('td', { hasText: /^WaitingForQuota: / }).first().waitFor({ timeout: deadline });
  await page.screenshot({ path: `${artifacts}/workload.png`, fullPage: true });

  // The actors with their mailboxes and message rates (the rate needs two loads).
  await page.evaluate(() => { location.hash = '#/actors'; });
  await page.locator('tr[data-actor^="cohort-tree/"]').first().waitFor({ timeout: deadline });
  await page.waitForFunction(() => [...document.querySelectorAll('tr[data-actor] td:nth-child(5)')].some(td => td.textContent !== ''),
                             null, { timeout: deadline });
  await page.screenshot({ path: `${artifacts}/actors.png`, fullPage: true });

  if (consoleErrors.length > 0) throw new Error('console errors:\n  ' + consoleErrors.join('\n  '));
  console.log(`ok - the web view rendered, updated live and logged no console error; screenshots in ${artifacts}`);
} catch (e) {
  failed = true;
  console.error('FAIL: ' + e.message);
  if (consoleErrors.length > 0) console.error('console errors:\n  ' + consoleErrors.join('\n  '));
  try {
    const pages = browser.contexts().flatMap(c => c.pages());
    if (pages[0]) await pages[0].screenshot({ path: `${artifacts}/failure.png`, fullPage: true });
  } catch {}
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
