// Measures the web view on a running controller (figures for docs/performance.md): for
// the cohort trees and a ClusterQueue's first and last page, the time from navigation to
// the page drawn, and the bytes transferred (the event stream, which never ends, aside).
//
// usage: node measure_view.mjs PROBE_URL CLUSTER_QUEUE PENDING_COUNT [RUNS]
import { chromium } from 'playwright-core';

const [url, queue, pendingText, runsText] = process.argv.slice(2);
const runs = Number(runsText || 5);
const last = Math.max(0, Math.floor((Number(pendingText) - 1) / 100) * 100);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });

async function measure(hash, ready) {
  const times = [], sizes = [], largest = [];
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    const bytes = new Map();
    cdp.on('Network.loadingFinished', e => bytes.set(e.requestId, e.encodedDataLength));
    const started = Date.now();
    await page.goto(url + '/' + hash);
    await page.locator(ready).first().waitFor({ timeout: 60_000 });
    times.push(Date.now() - started);
    await page.waitForTimeout(300);
    const all = [...bytes.values()];
    sizes.push(all.reduce((a, b) => a + b, 0));
    largest.push(Math.max(...all));
    await context.close();
  }
  const median = a => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];
  console.log(`${hash || '#/'}: load ${median(times)} ms (median of ${runs}; min ${Math.min(...times)}, max ${Math.max(...times)}), ` +
              `transferred ${(median(sizes) / 1024).toFixed(1)} KB, largest response ${(median(largest) / 1024).toFixed(1)} KB`);
}

await measure('', `tr[data-cq="${queue}"]`);
await measure(`#/clusterqueue/${queue}`, 'tr[data-workload]');
await measure(`#/clusterqueue/${queue}?offset=${last}`, 'tr[data-workload]');
await browser.close();
