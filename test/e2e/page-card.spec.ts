/**
 * The hover card: simulator data on hover, "Details" with network information, Escape,
 * screen-reader semantics, and API text rendered as text (the simulator's XSS fixture).
 */
import { expect, test } from './fixtures';
import { clickCardButton, hoverIp, markedIps, pageUrl, readCard, scrollToIp, usePageSimulator } from './page-support';

const env = usePageSimulator({ scanLoopback: true });

test('hovering an IP shows its reputation; Details adds the network information', async ({ context }) => {
  const page = await context.newPage();
  await page.goto(pageUrl(env.sim, 'splunk-events.html'));
  await expect.poll(() => markedIps(page, 'critical')).toContain('185.220.101.1');
  const cdp = await context.newCDPSession(page);

  await hoverIp(page, '185.220.101.1');
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('185.220.101.1');
  const card = (await readCard(cdp))!;
  expect(card.shadowRootType).toBe('closed');
  expect(card.hosts).toBe(1);
  for (const expected of ['Critical', '95', 'known attacker', '1,423', '2025-11-28 22:14:05 UTC', 'Network details cost 1 API request']) {
    expect(card.text).toContain(expected);
  }
  expect(card.text).not.toContain('AS60729');

  // Screen readers get a named dialog.
  const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: { role?: { value: string }; name?: { value: string } }[] };
  expect(nodes.some((n) => n.role?.value === 'dialog' && n.name?.value === 'IP reputation: 185.220.101.1, Critical')).toBe(true);

  const detailed = env.sim.requestLog.filter((r) => r.path === '/checkIP').length;
  await clickCardButton(page, cdp, /^Details$/);
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('AS60729');
  const text = (await readCard(cdp))!.text;
  for (const expected of ['Stiftung Erneuerbare Freiheit', 'torservers.net', 'Germany', 'Europe']) expect(text).toContain(expected);
  expect(env.sim.requestLog.filter((r) => r.path === '/checkIP').length).toBe(detailed + 1);

  await page.keyboard.press('Escape');
  await expect.poll(() => readCard(cdp)).toBeNull();
});

test('the card moves to another IP and closes when the pointer leaves', async ({ context }) => {
  const page = await context.newPage();
  await page.goto(pageUrl(env.sim, 'splunk-events.html'));
  await expect.poll(() => markedIps(page, 'high')).toContain('23.129.64.130');
  const cdp = await context.newCDPSession(page);
  await hoverIp(page, '23.129.64.130');
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('311');
  // Event 55, more than a screen below: marked once scrolled to.
  await scrollToIp(page, '1.1.1.1');
  await expect.poll(() => markedIps(page, 'whitelisted')).toContain('1.1.1.1');
  await hoverIp(page, '1.1.1.1');
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Whitelisted');
  // The whitelist entry is behind "More" in the card's compact first view.
  await clickCardButton(page, cdp, /^More$/);
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Anycast resolver');
  const text = (await readCard(cdp))!.text;
  expect(text).toContain('Anycast resolver, never block');
  expect(text).not.toContain('23.129.64.130');
  await page.mouse.move(5, 790, { steps: 5 });
  await expect.poll(() => readCard(cdp)).toBeNull();
});

test('markup in API strings is shown as text, never run', async ({ context }) => {
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(pageUrl(env.sim, 'splunk-events.html'));
  await expect.poll(() => markedIps(page, 'high')).toContain('93.184.216.66');
  const cdp = await context.newCDPSession(page);
  await hoverIp(page, '93.184.216.66');
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('<img src=x onerror=alert(1)>');
  await clickCardButton(page, cdp, /^Details$/);
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('<b onmouseover=alert(2)>Edgecast</b>');
  const card = (await readCard(cdp))!;
  expect(card.text).toContain('"><svg onload=alert(4)>');
  // The description comes with the single (detailed) lookup.
  expect(card.text).toContain('<script>alert(1)</script>');
  expect(card.tags.filter((t) => ['img', 'script', 'svg', 'b', 'a', 'iframe'].includes(t))).toEqual([]);
  expect(dialogs).toEqual([]);
});

test('the context menu lookup shows a card for the IPs of the selection', async ({ context, extensionId }) => {
  const page = await context.newPage();
  const url = pageUrl(env.sim, 'frames-shadow.html');
  await page.goto(url);
  await expect.poll(() => markedIps(page, 'critical')).toEqual(['185.220.101.1']);
  await page.locator('#top-line').evaluate((el) => getSelection()!.selectAllChildren(el));
  const cdp = await context.newCDPSession(page);
  const ext = await context.newPage();
  await ext.goto(`chrome-extension://${extensionId}/options.html`);
  const reply = await ext.evaluate(async (u) => {
    const c = (globalThis as unknown as { chrome: { tabs: { query(q: object): Promise<{ id: number }[]>; sendMessage(t: number, m: unknown, o: unknown): Promise<unknown> } } }).chrome;
    const [tab] = await c.tabs.query({ url: u });
    return c.tabs.sendMessage(tab!.id, { type: 'tab:show-lookup', payload: { text: 'from 185.220.101.1 and 1.1.1.1 and 10.0.0.1' } }, { frameId: 0 });
  }, url);
  expect(reply).toEqual({ ok: true, value: { ok: true } });
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('1.1.1.1 Whitelisted');
  // The selection card's entries are compact too: the whitelist entry is behind 1.1.1.1's "More"
  // (the only one: 185.220.101.1's answer holds nothing beyond the first view).
  await clickCardButton(page, cdp, /^More$/);
  await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Anycast resolver');
  const text = (await readCard(cdp))!.text;
  expect(text).toContain('IP addresses in the selection');
  expect(text).toContain('known attacker');
  expect(text).toMatch(/10\.0\.0\.1 Not looked up Private address/);
  await page.bringToFront();
  await page.keyboard.press('Escape');
  await expect.poll(() => readCard(cdp)).toBeNull();
});
