/**
 * One lens per frame. A one-off scan (toolbar, shortcut, context menu) injects the script into
 * a page where the registered one may already run; both share this isolated world's global, so
 * the second sees the first and stops. An instance orphaned by an extension update (its
 * runtime is gone) does not count: the new one takes over, and WXT tells the old one to stop.
 */
const KEY = Symbol.for('ip-reputation-lens/instance');

interface Instance {
  alive(): boolean;
}

export function claimInstance(alive: () => boolean): boolean {
  const g = globalThis as unknown as Record<symbol, Instance | undefined>;
  const existing = g[KEY];
  if (existing && existing.alive()) return false;
  g[KEY] = { alive };
  return true;
}
