import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { highlightCss } from '@/lib/page/highlight-styles';
import { SEVERITIES } from '@/lib/severity';

describe('static mark styles', () => {
  it('entrypoints/content/marks.css holds exactly the underline rules', () => {
    const file = readFileSync(path.resolve('entrypoints/content/marks.css'), 'utf8');
    const rules = file.replace(/\/\*[\s\S]*?\*\//g, '').trim();
    expect(rules).toBe(highlightCss(SEVERITIES, 'underline'));
  });

  it('background rules cancel the static underline', () => {
    for (const line of highlightCss(SEVERITIES, 'background').split('\n')) {
      if (line.includes('background-color')) expect(line).toContain('text-decoration: none');
    }
  });
  it('draws IPs past the cap unlike private ("skipped") and pending ones, in both styles', () => {
    for (const style of ['underline', 'background'] as const) {
      const body = (s: 'capped' | 'skipped' | 'pending') => highlightCss([s], style).replace(/^::highlight\([^)]*\)/, '');
      expect(body('capped')).not.toBe(body('skipped'));
      expect(body('capped')).not.toBe(body('pending'));
    }
  });
});
