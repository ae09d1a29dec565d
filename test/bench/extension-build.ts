/** The e2e build the browser benchmarks load: an existing one, else a fresh one of their own. */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export function benchExtensionDir(): string {
  const candidates = [process.env.BENCH_EXTENSION_DIR, process.env.E2E_EXTENSION_DIR, '.output/chrome-mv3-e2e'];
  const found = candidates
    .filter((d): d is string => !!d)
    .map((d) => path.resolve(d))
    .find((d) => existsSync(path.join(d, 'manifest.json')));
  if (found) return found;
  console.log('No e2e build found: building one into .output-bench …');
  execFileSync('npx', ['wxt', 'build', '--mode', 'e2e'], { stdio: 'inherit', env: { ...process.env, WXT_OUT_DIR: '.output-bench' } });
  return path.resolve('.output-bench/chrome-mv3-e2e');
}
