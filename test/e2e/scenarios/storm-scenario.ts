/**
 * The mutation storm (a hostile page), written once for both browsers. test/fixtures/hostile/
 * mutation-storm.html replaces 5,000 rows of one container in every animation frame. While
 * the container storms the extension does not observe it, only the page around it
 * (lib/page/changes/storm-watch.ts), so what matters is that nothing around it goes unseen, and that
 * the container itself is read once it rests.
 */
import type { Simulator } from '../../sim/server';
import { waitUntil, type ExtensionDriver } from './driver';
import { markedTexts } from './live-list-scenarios';

export async function stormLeavesThePageAroundItMarked(driver: ExtensionDriver, sim: Simulator): Promise<void> {
  const page = await driver.openPage(`${sim.origin}/pages/hostile/mutation-storm.html`);
  const marked = (accept: (text: string) => boolean, what: string, timeoutMs = 10_000) =>
    waitUntil(() => markedTexts(page), (marks) => marks.some(([text]) => accept(text)), what, timeoutMs);
  await marked((text) => text === '185.220.101.1', 'the steady rows marked', 30_000);
  // An element added beside the storming container, and later an address written into it.
  await page.evaluate(() => {
    document.getElementById('storm')!.after(Object.assign(document.createElement('section'), { id: 'beside' }));
  }, null);
  await new Promise((resolve) => setTimeout(resolve, 500));
  await page.evaluate(() => {
    document.getElementById('beside')!.append(Object.assign(document.createElement('p'), { textContent: 'src 185.220.101.66' }));
  }, null);
  await marked((text) => text === 'src 185.220.101.66', 'text written beside the storming container, marked while it storms');
  // Stopped: the rows it shows last are read and marked.
  await page.evaluate(() => (window as unknown as { stopStorm(): void }).stopStorm(), null);
  await marked((text) => text.startsWith('flow 11.'), "the storm's last rows, marked once it rests");
  // One more rebuild of 1,200 rows (a console re-rendering its table once): read a quarter of a
  // second later, once no other rebuild followed, and marked.
  await page.evaluate(() => {
    const rows = Array.from({ length: 1_200 }, (_, i) => Object.assign(document.createElement('div'), { textContent: i === 0 ? 'flow 185.220.101.77' : `tick ${i}` }));
    document.getElementById('storm')!.replaceChildren(...rows);
  }, null);
  await marked((text) => text === 'flow 185.220.101.77', 'one more rebuild of 1,200 rows, read and marked');
  await page.close();
}
