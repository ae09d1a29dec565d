/**
 * Build-time removal of two code paths the extension never takes, which AMO's addons-linter
 * flags and a store reviewer would ask about:
 * - zod's `allowsEval` probe calls `Function("")` to learn whether it may compile parsers with
 *   `new Function`. Extension pages forbid eval by CSP anyway, so the answer is always "no":
 *   it becomes the constant false, and zod takes its interpreted path (the one it takes today).
 * - Preact's `dangerouslySetInnerHTML` branch assigns `innerHTML`. The project never passes that
 *   prop (ESLint forbids it); should it ever arrive, the text is set as text instead.
 * Each rewrite fails the build if its pattern is gone (a dependency update changed the code),
 * rather than silently shipping the flagged path again.
 */
import type { Plugin } from 'vite';

const ZOD_PROBE = /export const allowsEval = \/\* @__PURE__\*\/ cached\(\(\) => \{[\s\S]*?\n\}\);/;
const PREACT_INNER_HTML = /\(([a-z])\.innerHTML=([a-z])\.__html\)/g;

export function stripZodEvalProbe(code: string): string {
  if (!ZOD_PROBE.test(code)) throw new Error("zod's allowsEval probe was not found: check scripts/store-bundle-cleanup.ts against this zod version.");
  return code.replace(ZOD_PROBE, 'export const allowsEval = { value: false };');
}

export function stripPreactInnerHtml(code: string): string {
  const matches = code.match(PREACT_INNER_HTML) ?? [];
  if (matches.length !== 1) throw new Error(`Preact's innerHTML assignment was found ${matches.length} times, expected 1: check scripts/store-bundle-cleanup.ts.`);
  return code.replace(PREACT_INNER_HTML, '($1.textContent=$2.__html)');
}

export function storeBundleCleanup(): Plugin {
  return {
    name: 'iplens-store-bundle-cleanup',
    enforce: 'pre',
    transform(code, id) {
      const file = id.split('?')[0]!.replaceAll('\\', '/');
      if (file.endsWith('/node_modules/zod/v4/core/util.js')) return { code: stripZodEvalProbe(code), map: null };
      if (file.endsWith('/node_modules/preact/dist/preact.mjs')) return { code: stripPreactInnerHtml(code), map: null };
      return null;
    },
  };
}
