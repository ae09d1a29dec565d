/**
 * `npm run bench [part...]`: every benchmark prints ratios measured side by side in this one
 * run (never absolute time budgets: the machine is shared and noisy). The parts, what each
 * measures and its goals: docs/benchmarks.md; each part's flags: its own header comment.
 */
import { partsToRun } from './parts';

let parts;
try {
  parts = partsToRun(process.argv.slice(2));
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}

for (const part of parts) {
  console.log(`\n=== bench: ${part} ===`);
  const mod = (await import(`./${part}.ts`)) as { run: () => Promise<void> };
  await mod.run();
}
