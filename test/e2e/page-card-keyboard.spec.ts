/**
 * The hover card from the keyboard: the shortcut walks the marks on screen in reading order
 * with the focus in each card, Tab walks the card's actions, Escape gives the focus back, and a
 * card the pointer opened takes the focus at the same key. The card is a labelled dialog, its
 * first view compact, and it sits clear of the marks on the rows above and below.
 */
import { expect, test } from './fixtures';
import { cardBox, hoverIp, markedIps, pageUrl, readCard, scrollToIp, usePageSimulator } from './page-support';
import { focusedNode, marksOnScreen, pressNextIp } from './card-keyboard-support';

const env = usePageSimulator({ scanLoopback: true });

const intersects = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

test('the shortcut opens the first IP on screen with the focus in its card; Tab walks the actions; Escape gives the focus back', async ({ context }) => {
  const page = await context.newPage();
  const url = pageUrl(env.sim, 'splunk-events.html');
  await page.goto(url);
  await expect.poll(() => markedIps(page, 'critical')).toContain('185.220.101.1');
  const cdp = await context.newCDPSession(page);
  const order = await marksOnScreen(page);
  expect(order.length).toBeGreaterThan(3);
  // The analyst was on the page's first "show raw event" button.
  await page.locator('.toggle').first().focus();

  await pressNextIp(context, url);
  await expect.poll(async () => (await focusedNode(cdp))?.role).toBe('dialog');
  const first = order[0]!.ip;
  expect((await focusedNode(cdp))!.name).toMatch(new RegExp(`^IP reputation: ${first.replace(/\./g, '\\.')}, \\S`));
  expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('IP-REPUTATION-LENS');
  expect((await readCard(cdp))!.text).toContain(first);

  // Tab walks every button of the card, in order.
  const walked: string[] = [];
  for (let i = 0; i < 6; i++) {
    await page.keyboard.press('Tab');
    const f = await focusedNode(cdp);
    walked.push(`${f?.role}:${f?.name}`);
  }
  expect(walked.slice(0, 4)).toEqual(['button:Close (Escape)', 'button:Details', 'button:Copy IP', 'button:Copy defanged']);
  expect(walked.filter((w) => w.startsWith('button:Check '))).toHaveLength(1);

  await page.keyboard.press('Escape');
  await expect.poll(() => readCard(cdp)).toBeNull();
  expect(await page.evaluate(() => document.activeElement?.className)).toBe('toggle');
});

test('repeated presses go on to the next IP in reading order and wrap after the last', async ({ context }) => {
  const page = await context.newPage();
  const url = pageUrl(env.sim, 'big-table.html?rows=12');
  await page.goto(url);
  await expect.poll(async () => (await marksOnScreen(page)).length).toBeGreaterThan(20);
  const cdp = await context.newCDPSession(page);
  const order = (await marksOnScreen(page)).map((m) => m.ip);
  const seen: string[] = [];
  for (let i = 0; i <= order.length; i++) {
    await pressNextIp(context, url);
    const expected = order[i % order.length]!;
    await expect.poll(async () => (await focusedNode(cdp))?.name ?? '').toMatch(new RegExp(`^IP reputation: ${expected.replace(/\./g, '\\.')},`));
    seen.push(expected);
  }
  expect(seen[seen.length - 1]).toBe(order[0]);
  await page.keyboard.press('Escape');
  await expect.poll(() => readCard(cdp)).toBeNull();
});

test('a card the pointer opened takes the focus at the shortcut, and gives it back at Escape', async ({ context }) => {
  const page = await context.newPage();
  const url = pageUrl(env.sim, 'splunk-events.html');
  await page.goto(url);
  await expect.poll(() => markedIps(page, 'critical')).toContain('185.220.101.1');
  const cdp = await context.newCDPSession(page);
  await page.locator('#query').focus();
  await hoverIp(page, '185.220.101.1');
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('185.220.101.1');
  // Opened by the pointer: the focus stays where the analyst typed.
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('query');

  await pressNextIp(context, url);
  await expect.poll(async () => (await focusedNode(cdp))?.name).toBe('IP reputation: 185.220.101.1, Critical');
  // The same card, not the next IP.
  expect((await readCard(cdp))!.text).toContain('185.220.101.1');
  // The pointer wandering off does not take the card away from the keyboard.
  await page.mouse.move(5, 790, { steps: 5 });
  await page.waitForTimeout(600);
  expect(await readCard(cdp)).not.toBeNull();
  await page.keyboard.press('Tab');
  expect((await focusedNode(cdp))?.name).toBe('Close (Escape)');
  await page.keyboard.press('Escape');
  await expect.poll(() => readCard(cdp)).toBeNull();
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('query');
});

test('the first view is compact; More shows the rest and is keyboard operable', async ({ context }) => {
  const page = await context.newPage();
  const url = pageUrl(env.sim, 'splunk-events.html');
  await page.goto(url);
  // Event 55, more than a screen below: marked once scrolled to.
  await scrollToIp(page, '1.1.1.1');
  await expect.poll(() => markedIps(page, 'whitelisted')).toContain('1.1.1.1');
  const cdp = await context.newCDPSession(page);
  await hoverIp(page, '1.1.1.1');
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Whitelisted');
  const text = (await readCard(cdp))!.text;
  for (const shown of ['Score', 'Reputation', 'Total hits', 'Last attack', 'Copy IP', 'More']) expect(text).toContain(shown);
  expect(text).not.toContain('Anycast resolver, never block');
  await pressNextIp(context, url);
  await expect.poll(async () => (await focusedNode(cdp))?.role).toBe('dialog');
  for (let i = 0; i < 20 && (await focusedNode(cdp))?.name !== 'More'; i++) await page.keyboard.press('Tab');
  expect(await focusedNode(cdp)).toEqual({ role: 'button', name: 'More' });
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Anycast resolver, never block');
  expect((await focusedNode(cdp))?.name).toBe('Less');
});

test('the card sits clear of the IPs on the rows above and below', async ({ context }) => {
  const page = await context.newPage();
  await page.goto(pageUrl(env.sim, 'big-table.html?rows=40'));
  await expect.poll(async () => (await marksOnScreen(page)).length).toBeGreaterThan(60);
  const cdp = await context.newCDPSession(page);
  const marks = await marksOnScreen(page);
  // A source address in the middle of the screen, and the marks on the rows just above and below it.
  const target = marks.filter((m) => m.x < 400).find((m) => m.y > 300)!;
  const rowOf = (m: { y: number; height: number }) => Math.round((m.y + m.height / 2 - (target.y + target.height / 2)) / target.height);
  const lines = [...new Set(marks.map((m) => m.y + m.height / 2))].sort((a, b) => a - b);
  const mid = target.y + target.height / 2;
  const above = Math.max(...lines.filter((y) => y < mid - target.height / 2));
  const below = Math.min(...lines.filter((y) => y > mid + target.height / 2));
  const neighbours = marks.filter((m) => [above, below].includes(m.y + m.height / 2));
  expect(neighbours.length, `rows ${rowOf({ y: above, height: 0 })} and ${rowOf({ y: below, height: 0 })}`).toBeGreaterThanOrEqual(4);
  await page.mouse.move(target.x - 40, target.y + 30);
  await page.mouse.move(target.x + target.width / 2, target.y + target.height / 2, { steps: 4 });
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain(target.ip);
  await page.waitForTimeout(200);
  const box = (await cardBox(cdp))!;
  expect(box.height).toBeGreaterThan(100);
  const covered = neighbours.filter((n) => intersects(box, n)).map((n) => n.ip);
  expect(covered).toEqual([]);
});
