// @vitest-environment happy-dom
/**
 * Bidi controls from pages and the API are shown, never obeyed: "…\u202Elive" must not read as
 * "evil…" in the card, the popup, the options page or an export.
 */
import { render } from 'preact';
import { describe, expect, it } from 'vitest';
import { ReputationDetails } from '@/components/reputation-details';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';
import { csvCell } from '@/lib/ui/shared/csv';
import { rowsToCsv, rowsToJson } from '@/lib/ui/shared/export-rows';
import { escapeBidiInJson, hasBidiControls, showBidiControls } from '@/lib/visible-text';

const EVIL = 'exe.\u202Elive';
const CONTROLS = '\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C';

describe('bidi controls', () => {
  it('are replaced by visible markers', () => {
    expect(showBidiControls(EVIL)).toBe('exe.[U+202E]live');
    expect(hasBidiControls(showBidiControls(CONTROLS))).toBe(false);
    expect(showBidiControls(CONTROLS)).toContain('[U+061C]');
    expect(showBidiControls('plain text, عربي')).toBe('plain text, عربي');
  });

  it('are visible in the card and the popup details', () => {
    const host = document.createElement('div');
    render(
      <ReputationDetails
        result={{
          ip: '185.220.101.1',
          status: 'found',
          fetchedAt: 0,
          data: {
            ip: '185.220.101.1', score: 90, threatLevel: 'CRITICAL', reputation: `bad${'\u2067'}`, totalHits: 1, lastAttack: null,
            whitelisted: false, whitelist: null, description: EVIL, ipInfo: { as_name: `AS\u202Dname` },
          },
        }}
        thresholds={DEFAULT_THRESHOLDS}
      />,
      host,
    );
    const text = host.textContent ?? '';
    expect(hasBidiControls(text)).toBe(false);
    expect(text).toContain('exe.[U+202E]live');
    expect(text).toContain('AS[U+202D]name');
  });

  it('are escaped in CSV and JSON exports', () => {
    expect(csvCell(EVIL)).toBe('exe.[U+202E]live');
    const rows = [{ ip: '8.8.8.8', count: 1, result: { ip: '8.8.8.8', status: 'error' as const, error: { kind: 'server' as const, message: EVIL } } }];
    expect(hasBidiControls(rowsToCsv(rows, DEFAULT_THRESHOLDS))).toBe(false);
    const json = rowsToJson(rows, DEFAULT_THRESHOLDS, { source: `page ${EVIL}`, exportedAt: 0 });
    expect(hasBidiControls(json)).toBe(false);
    expect(json).toContain('exe.\\u202elive');
    expect((JSON.parse(json) as { source: string }).source).toBe(`page ${EVIL}`);
    expect(escapeBidiInJson('"\u2066"')).toBe('"\\u2066"');
  });
});
