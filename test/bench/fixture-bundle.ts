/**
 * Bench fixtures built from real UI libraries (test/fixtures/consoles/react-tail/: React and
 * @tanstack/react-table) are bundled here at bench time, not committed: the bundle is
 * test/fixtures/<dir>/build/<name>.js, rebuilt when its source is newer, production React.
 */
import { build } from 'esbuild';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

/** Bundles test/fixtures/consoles/<name>/app.js into test/fixtures/consoles/build/<name>.js. */
export async function bundleConsoleFixture(name: string): Promise<void> {
  const entry = path.resolve('test/fixtures/consoles', name, 'app.js');
  const outfile = path.resolve('test/fixtures/consoles/build', `${name}.js`);
  if (existsSync(outfile) && statSync(outfile).mtimeMs >= statSync(entry).mtimeMs) return;
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'iife',
    minify: true,
    target: 'chrome120',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
}
