import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { highlightCss } from '@/lib/page/marks/highlight-styles';
import { SEVERITIES } from '@/lib/severity';

describe('static mark styles', () => {
  it('entrypoints/content/marks.css holds exactly the underline rules', () => {
    const file = readFileSync(path.resolve('entrypoints/content/marks.css'), 'utf8');
    const rules = file.replace(/\/\*[\s\S]*?\*\//g, '').trim();
    expect(rules).toBe(highlightCss(SEVERITIES, 'underline'));
  });

  it('marks by one rule on the root in Chromium, never by a rule every element matches', () => {
    for (const style of ['underline', 'background'] as const) {
      const css = highlightCss(SEVERITIES, style);
      const [chromium, firefox] = css.split('@supports (-moz-appearance: none) {');
      // Outside the Gecko-only block, every highlight selector is anchored on :root or :host.
      expect(chromium!.match(/(^|[\s,])::highlight/g)).toBeNull();
      for (const s of SEVERITIES) expect(chromium).toContain(`:root::highlight(ip-rep-${s}), :host::highlight(ip-rep-${s}) {`);
      // Firefox has no highlight inheritance: it keeps the universal rules, in its own block.
      for (const s of SEVERITIES) expect(firefox).toContain(`  ::highlight(ip-rep-${s}) {`);
    }
  });

  it('background rules cancel the static underline', () => {
    for (const line of highlightCss(SEVERITIES, 'background').split('\n')) {
      if (line.includes('background-color')) expect(line).toContain('text-decoration: none');
    }
  });
  it('draws IPs past the cap unlike private ("skipped") and pending ones, in both styles', () => {
    for (const style of ['underline', 'background'] as const) {
      const body = (s: 'capped' | 'skipped' | 'pending') => highlightCss([s], style).replaceAll(/::highlight\([^)]*\)/g, '');
      expect(body('capped')).not.toBe(body('skipped'));
      expect(body('capped')).not.toBe(body('pending'));
    }
  });
});
