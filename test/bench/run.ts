/**
 * `npm run bench [part...]`: every benchmark prints ratios measured side by side in this one
 * run (never absolute time budgets: the machine is shared and noisy).
 * Parts: extract (lib/ip), lookup (lib/lookup vs naive), page (content script in Chromium),
 * popup (popup load with a warm cache), page-profile (where the content script's time goes),
 * page-hostile (hostile pages: longest task, blocking time), page-memory (heap and
 * DOM nodes under two mutation storms, with and without the extension).
 */
const PARTS = ['extract', 'lookup', 'page', 'popup', 'page-profile', 'page-phases', 'page-hostile', 'page-memory'] as const;
type Part = (typeof PARTS)[number];

const requested = process.argv.slice(2).filter((a): a is Part => (PARTS as readonly string[]).includes(a));
// page-profile builds its own readable copy: only when asked for.
const parts = requested.length ? requested : PARTS.filter((p) => p !== 'page-profile' && p !== 'page-phases');

for (const part of parts) {
  console.log(`\n=== bench: ${part} ===`);
  const mod = (await import(`./${part}.ts`)) as { run: () => Promise<void> };
  await mod.run();
}
