/**
 * The dashboard page's script and style, bundled by esbuild in memory the first time they are
 * asked for (about 100 ms), then kept. The gateway already runs its TypeScript through tsx,
 * which is built on esbuild, so serving needs no separate build step or output folder.
 */
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dashboard');

export interface DashboardAssets {
  js: string;
  css: string;
}

let assets: Promise<DashboardAssets> | null = null;

export function dashboardAssets(): Promise<DashboardAssets> {
  assets ??= (async () => {
    const result = await build({
      entryPoints: [path.join(PAGE_DIR, 'main.tsx')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      jsx: 'automatic',
      jsxImportSource: 'preact',
      legalComments: 'none',
      logLevel: 'silent',
    });
    const css = await readFile(path.join(PAGE_DIR, 'dashboard.css'), 'utf8');
    return { js: result.outputFiles[0]!.text, css };
  })().catch((error: unknown) => {
    assets = null;
    throw error;
  });
  return assets;
}
