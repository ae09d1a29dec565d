/**
 * Past the per-page cap is a state of its own: public IPs the cap held back are drawn
 * as "capped", never like private addresses ("skipped"), and their card says why and what to do.
 * Written once for both browsers; popup.spec.ts goes on in Chromium to the popup's cap panel.
 */
import type { Simulator } from '../../sim/server';
import { waitUntil, type Evaluator, type ExtensionDriver } from './driver';
import { cardText, hoverIp } from './extension-scenarios';

/** Distinct addresses under one of our highlights, by its full name. */
function marked(page: Evaluator, highlight: string): Promise<string[]> {
  return page.evaluate((name) => {
    const h = CSS.highlights.get(name);
    const texts = [...(h ?? [])].map((r) => (r.startContainer as Text).data.slice(r.startOffset, r.endOffset));
    return [...new Set(texts)].sort();
  }, highlight);
}

/** The fixtures' non-public addresses (test/fixtures/siem/data.js): 10/8, 172.16/12, 192.168/16, loopback. */
const isPrivate = (ip: string) => /^(10\.|127\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(ip);

async function setPerPageCap(driver: ExtensionDriver, value: string): Promise<string> {
  const options = await driver.openExtensionPage('options.html');
  try {
    await options.waitForText('Per-page cap');
    const before = await options.evaluate(() => {
      const label = [...document.querySelectorAll('label')].find((l) => l.textContent?.trim() === 'Per-page cap');
      return (label?.control as HTMLInputElement | null)?.value ?? '';
    }, null);
    await options.fill('Per-page cap', value);
    await options.pressKey('Enter');
    await options.waitForText('Saved.');
    return before;
  } finally {
    await options.close();
  }
}

/**
 * With a cap of 2, a console full of addresses nobody looked up yet: the rest are "capped",
 * private addresses alone are "skipped", and a capped IP's card names the cap.
 */
export async function pastTheCapHasItsOwnState(driver: ExtensionDriver, sim: Simulator): Promise<void> {
  const previous = await setPerPageCap(driver, '2');
  try {
    const page = await driver.openPage(`${sim.origin}/pages/siem/kibana-discover.html`);
    const capped = await waitUntil(() => marked(page, 'ip-rep-capped'), (ips) => ips.length > 0, 'capped marks');
    await waitUntil(() => marked(page, 'ip-rep-pending'), (ips) => ips.length === 0, 'no pending marks');
    const skipped = await marked(page, 'ip-rep-skipped');
    if (skipped.length === 0 || !skipped.every(isPrivate)) throw new Error(`"skipped" should hold the private addresses only: ${skipped.join(', ')}`);
    const wrong = (await marked(page, 'ip-rep-capped')).filter(isPrivate);
    if (wrong.length) throw new Error(`private addresses drawn as capped: ${wrong.join(', ')}`);
    await hoverIp(page, capped[0]!);
    await waitUntil(() => cardText(page), (t) => t.includes('this page reached its cap of 2 automatic lookups this hour'), 'the capped card');
    await page.pressKey('Escape');
    await page.close();
  } finally {
    await setPerPageCap(driver, previous);
  }
}
