/**
 * The hover card audited by axe-core with the WCAG 2.2 AA rules, light and dark: its compact
 * first view, its "More", and the card the keyboard opened (focus shown). See card-axe.ts for
 * how axe reaches into the closed shadow root.
 */
import { expect, test } from './fixtures';
import { clickCardButton, hoverIp, markedIps, pageUrl, readCard, scrollToIp, usePageSimulator } from './page-support';
import { auditCard, type CardAudit } from './card-axe';
import { focusedNode, pressNextIp } from './card-keyboard-support';

const env = usePageSimulator({ scanLoopback: true });

for (const scheme of ['light', 'dark'] as const) {
  test(`the hover card has no WCAG 2.2 AA violation (${scheme})`, async ({ context }) => {
    const page = await context.newPage();
    await page.emulateMedia({ colorScheme: scheme });
    const url = pageUrl(env.sim, 'splunk-events.html');
    await page.goto(url);
    await expect.poll(() => markedIps(page, 'critical')).toContain('185.220.101.1');
    const cdp = await context.newCDPSession(page);
    const audits: Record<string, CardAudit> = {};

    await hoverIp(page, '185.220.101.1');
    await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('known attacker');
    audits['critical, first view'] = await auditCard(cdp);

    // Event 55, more than a screen below: marked once scrolled to.
    await scrollToIp(page, '1.1.1.1');
    await expect.poll(() => markedIps(page, 'whitelisted')).toContain('1.1.1.1');
    await hoverIp(page, '1.1.1.1');
    await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Whitelisted');
    await clickCardButton(page, cdp, /^More$/);
    await expect.poll(async () => (await readCard(cdp))?.text ?? '').toContain('Anycast resolver');
    audits['whitelisted, More open'] = await auditCard(cdp);

    // The card the keyboard took: the dialog holds the focus (and shows it).
    await pressNextIp(context, url);
    await expect.poll(async () => (await focusedNode(cdp))?.role).toBe('dialog');
    audits['keyboard, focus in'] = await auditCard(cdp);

    for (const [what, audit] of Object.entries(audits)) {
      expect(audit.violations, what).toEqual([]);
      // axe reached the card's own elements (targets inside a shadow root are arrays of selectors).
      expect(audit.passedNodes, what).toBeGreaterThan(10);
      // Only contrast is left undecided (see CardAudit.incomplete).
      expect(audit.incomplete.filter((id) => id !== 'color-contrast'), what).toEqual([]);
    }
  });
}
