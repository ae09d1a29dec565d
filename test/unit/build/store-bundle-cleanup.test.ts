/**
 * The build's removal of zod's eval probe and Preact's innerHTML branch, run on the installed
 * packages' own files: the flagged code is gone, and a file without it stops the build.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { storeBundleCleanup, stripPreactInnerHtml, stripZodEvalProbe } from '@/scripts/store-bundle-cleanup';

const zodUtil = readFileSync('node_modules/zod/v4/core/util.js', 'utf8');
const preact = readFileSync('node_modules/preact/dist/preact.mjs', 'utf8');

describe('store bundle cleanup', () => {
  it("turns zod's Function('') probe into the constant false", () => {
    expect(zodUtil).toMatch(/new F\(""\)/);
    const out = stripZodEvalProbe(zodUtil);
    expect(out).not.toMatch(/new F\(|Function\(/);
    expect(out).toContain('export const allowsEval = { value: false };');
    // The rest of the module is untouched.
    expect(out.length).toBeGreaterThan(zodUtil.length - 1000);
  });

  it("sets Preact's dangerouslySetInnerHTML as text, never as HTML", () => {
    expect(preact).toContain('.innerHTML=');
    const out = stripPreactInnerHtml(preact);
    expect(out).not.toMatch(/\.innerHTML=/);
    expect(out).toMatch(/\([a-z]\.textContent=[a-z]\.__html\)/);
  });

  it('fails loudly when a dependency update moved the code', () => {
    expect(() => stripZodEvalProbe('export const x = 1;')).toThrow(/allowsEval probe was not found/);
    expect(() => stripPreactInnerHtml('a.textContent=1')).toThrow(/found 0 times/);
  });

  it('rewrites only those two files', () => {
    const plugin = storeBundleCleanup();
    const transform = plugin.transform as (code: string, id: string) => { code: string } | null;
    expect(transform('x.innerHTML=y.__html', '/app/lib/page/card.ts')).toBeNull();
    expect(transform(zodUtil, '/app/node_modules/zod/v4/core/util.js')!.code).not.toMatch(/Function\(|new F\(/);
    expect(transform(preact, '/app/node_modules/preact/dist/preact.mjs?v=1')!.code).not.toContain('.innerHTML=');
  });
});
