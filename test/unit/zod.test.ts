/**
 * zod must never try `new Function` in the extension: the probe alone is a CSP violation in
 * Firefox's console (lib/zod.ts). This file is its own module graph (vitest isolates test
 * files), so zod is loaded fresh by the dynamic imports below, after the trap is in place.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const realFunction = globalThis.Function;

afterEach(() => {
  globalThis.Function = realFunction;
});

describe('zod runs without eval', () => {
  it('building and using every schema module never constructs a Function', async () => {
    const constructed: unknown[][] = [];
    globalThis.Function = new Proxy(realFunction, {
      construct(target, args) {
        constructed.push(args);
        return Reflect.construct(target, args);
      },
    });
    const messaging = await import('../../lib/messaging');
    await import('../../lib/settings');
    await import('../../lib/api/schemas');
    await import('../../lib/lookup/cache-record');
    await import('../../lib/lookup/page-cap');
    await import('../../lib/lookup/quota-ledger');
    await import('../../lib/background/badge');
    // Parsing an object schema is where a JIT-compiled parser would run.
    expect(Object.keys(messaging).length).toBeGreaterThan(0);
    const { z } = await import('../../lib/zod');
    expect(z.object({ a: z.string() }).parse({ a: 'x' })).toEqual({ a: 'x' });
    expect(constructed).toEqual([]);
    expect(z.config().jitless).toBe(true);
  });

  it('no extension module imports zod past lib/zod.ts', () => {
    const offenders: string[] = [];
    const visit = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) visit(file);
        else if (/\.tsx?$/.test(entry.name) && file !== path.join('lib', 'zod.ts')) {
          // Type-only imports are erased from the bundle; values must come through lib/zod.ts.
          if (/^import\s+(?!type\b)[^;]*from\s+['"]zod(\/[^'"]*)?['"]/m.test(readFileSync(file, 'utf8'))) offenders.push(file);
        }
      }
    };
    for (const dir of ['lib', 'entrypoints', 'components']) visit(dir);
    expect(offenders).toEqual([]);
  });
});
