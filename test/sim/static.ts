/**
 * Serves fixture pages under `/pages/` from the same origin as the API, so e2e tests and the
 * demo need one server. Correct content types matter: Chromium will not run a script served as
 * text/plain, and the content script only runs on real HTML documents.
 */
import { readFile, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import path from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

export function contentTypeFor(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** `relative` is the URL path after `/pages/`, still percent-encoded. */
export async function serveStatic(root: string, relative: string, res: ServerResponse, headOnly = false): Promise<void> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(relative);
  } catch {
    return notFound(res);
  }
  const base = path.resolve(root);
  let file = path.resolve(base, `.${path.posix.sep}${decoded}`);
  // Never serve outside the root (`/pages/../../etc/passwd`).
  if (file !== base && !file.startsWith(base + path.sep)) return notFound(res);
  try {
    if ((await stat(file)).isDirectory()) file = path.join(file, 'index.html');
    const content = await readFile(file);
    res.writeHead(200, { 'Content-Type': contentTypeFor(file), 'Content-Length': content.length, 'Cache-Control': 'no-store' });
    res.end(headOnly ? undefined : content);
  } catch {
    notFound(res);
  }
}

export function notFound(res: ServerResponse): void {
  const html = '<!doctype html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>';
  res.writeHead(404, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(html);
}
