import { describe, expect, it } from 'vitest';
import { findIps, normalizeIp } from '../../../lib/ip';
import { loadCorpus } from '../../fixtures/ip-corpus/load-corpus';
import { scoreAddresses, scoreMatches } from '../../fixtures/ip-corpus/score';

const cases = loadCorpus();

describe('labeled corpus', () => {
  it('holds at least 300 cases drawn from real formats, with negatives', () => {
    expect(cases.length).toBeGreaterThanOrEqual(300);
    expect(cases.filter((c) => c.expected.length === 0).length).toBeGreaterThanOrEqual(50);
    expect(new Set(cases.map((c) => c.id.split(':')[0])).size).toBeGreaterThanOrEqual(8);
  });

  it('findIps finds every labeled address at its offsets and nothing else', () => {
    const exact = scoreMatches(cases, findIps);
    const bySet = scoreAddresses(cases, (text) => findIps(text).map((m) => m.ip));
    const total = cases.reduce((n, c) => n + c.expected.length, 0);
    console.log(
      `ip corpus: ${cases.length} cases, ${total} labeled addresses\n` +
        `  with offsets: precision ${exact.precision.toFixed(4)} recall ${exact.recall.toFixed(4)}` +
        ` (tp ${exact.truePositives}, fp ${exact.falsePositives}, fn ${exact.falseNegatives})\n` +
        `  by address:   precision ${bySet.precision.toFixed(4)} recall ${bySet.recall.toFixed(4)}`,
    );
    expect({ wrong: exact.wrong, missed: exact.missed }).toEqual({ wrong: [], missed: [] });
    expect(exact.precision).toBe(1);
    expect(exact.recall).toBe(1);
  });

  it('marks text that normalizes to the reported address', () => {
    for (const c of cases) {
      for (const m of findIps(c.text)) expect(normalizeIp(c.text.slice(m.start, m.end)), c.id).toBe(m.ip);
    }
  });
});
