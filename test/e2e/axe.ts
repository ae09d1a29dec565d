/**
 * axe-core's WCAG 2.2 AA audit for the e2e specs (popup, options, hover card): one call, the
 * same tags everywhere, and a failure message that names each rule and the nodes it found.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

export interface AuditOptions {
  /** Light or dark: emulated before the audit (prefers-color-scheme). */
  colorScheme?: 'light' | 'dark';
  /** CSS selectors to audit only (e.g. the hover card's host); the whole page if absent. */
  include?: string[];
  exclude?: string[];
}

export interface AuditResult {
  violations: { id: string; impact: string | null | undefined; help: string; nodes: string[] }[];
  /** One line per violation and node, for an assertion message. */
  summary: string;
}

export async function auditPage(page: Page, opts: AuditOptions = {}): Promise<AuditResult> {
  if (opts.colorScheme) await page.emulateMedia({ colorScheme: opts.colorScheme });
  let builder = new AxeBuilder({ page }).withTags(WCAG_TAGS);
  for (const selector of opts.include ?? []) builder = builder.include(selector);
  for (const selector of opts.exclude ?? []) builder = builder.exclude(selector);
  const results = await builder.analyze();
  const violations = results.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary ?? ''}`.replace(/\s+/g, ' ')),
  }));
  const summary = violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n  ${v.nodes.join('\n  ')}`).join('\n');
  return { violations, summary };
}
