/**
 * Every kept benchmark still loads and runs. The browser benchmarks (page, popup, page-profile,
 * page-phases, page-hostile, page-memory, storm-frames) take minutes of two cores even at their
 * smallest settings, too long for `npm test` (docs/benchmarks.md says so): for them this checks
 * what can break without a browser: the module loads with no work done at import and exports
 * `run`, its argument parsing, and that docs/benchmarks.md documents it. lookup, which needs no
 * browser, runs for real at its smallest setting (the faulty-network scenario alone).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { PARTS, partsToRun } from '../../bench/parts';

const BENCH = path.resolve(__dirname, '../../bench');

describe('bench parts', () => {
  it('runs every part but the diagnostics by default, and the parts named', () => {
    expect(partsToRun([])).toEqual(['extract', 'lookup', 'page', 'popup', 'page-hostile', 'page-memory', 'gateway']);
    expect(partsToRun(['storm-frames', 'page'])).toEqual(['storm-frames', 'page']);
  });

  it('refuses a part it does not know, naming the ones it does', () => {
    expect(() => partsToRun(['page', 'restyle-experiment'])).toThrow(/Unknown bench part "restyle-experiment": the parts are extract, lookup, page/);
  });

  it.each(PARTS)('%s loads without running and exports run()', async (part) => {
    const log = vi.spyOn(console, 'log');
    const mod = (await import(`../../bench/${part}.ts`)) as { run?: unknown };
    expect(typeof mod.run).toBe('function');
    expect(log).not.toHaveBeenCalled();
  }, 60_000);

  it('holds no script that is neither a part nor used by one (a settled experiment is deleted)', () => {
    const files = readdirSync(BENCH).filter((f) => f.endsWith('.ts'));
    const sources = files.map((f) => readFileSync(path.join(BENCH, f), 'utf8')).join('\n');
    const orphans = files.filter((f) => {
      const name = f.replace(/\.ts$/, '');
      if ((PARTS as readonly string[]).includes(name) || name === 'run' || name === 'parts') return false;
      return !sources.includes(`from './${name}'`);
    });
    expect(orphans).toEqual([]);
  });

  it('has a row in docs/benchmarks.md for every part', () => {
    const doc = readFileSync(path.resolve(BENCH, '../../docs/benchmarks.md'), 'utf8');
    for (const part of PARTS) expect(doc, part).toContain(`npm run bench ${part}`);
  });
});

describe('storm-frames arguments', () => {
  it('takes loads named alone… or scanned…, and refuses others', async () => {
    const { stormLoads } = await import('../../bench/storm-frames');
    expect(stormLoads()).toEqual(['alone', 'scanned']);
    expect(stormLoads('alone,scanned,alone-b')).toEqual(['alone', 'scanned', 'alone-b']);
    expect(() => stormLoads('alone,sheet')).toThrow('STORM_WHICH: each name starts with "alone" or "scanned", got "alone,sheet"');
  });
});

describe('bench lookup, smallest setting', () => {
  it('runs the faulty-network scenario against the simulator and prints its ratios', async () => {
    vi.stubEnv('BENCH_LOOKUP', 'faulty');
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
    const { run } = await import('../../bench/lookup');
    await run();
    vi.unstubAllEnvs();
    const out = lines.join('\n');
    expect(out).toMatch(/Faulty network: 5,000 unique IPs/);
    expect(out).toMatch(/units paid \/ found IPs \d+\.\d\d× \(goal ≤ 1\.10×/);
    expect(out).toMatch(/bulk calls \/ minimum \d+\.\d\d×/);
  }, 120_000);
});
