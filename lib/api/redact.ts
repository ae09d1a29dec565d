/**
 * Error text may reach the hover card, the popup and exports, all of which a page or a file can
 * show to others: it must never carry the key or other credentials. The server's own words (a
 * 403 that echoes the key it refused, a fetch error that quotes a URL with `user:pass@`) pass
 * through here before they join our message.
 */

/** Longer server messages are cut: the UI shows one line of them. */
export const MAX_SERVER_TEXT = 300;
const MASK = '[redacted]';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function variantsOf(secret: string): string[] {
  const variants = new Set([secret, encodeURIComponent(secret)]);
  try {
    variants.add(btoa(secret));
  } catch {
    // Not Latin-1: no base64 form to look for.
  }
  return [...variants].filter((v) => v.length >= 4);
}

/**
 * Removes the given secrets (any case, URL-encoded or base64) and whatever looks like a
 * credential: `user:pass@` in URLs, `Bearer …`, `api-key=…`, and long opaque tokens such as
 * keys. Control characters become spaces; the result is at most `max` characters.
 */
export function redactSecrets(text: string, secrets: readonly string[] = [], max = MAX_SERVER_TEXT): string {
  let out = String(text);
  for (const secret of secrets) {
    for (const variant of variantsOf(secret.trim())) out = out.replace(new RegExp(escapeRegExp(variant), 'gi'), MASK);
  }
  out = out
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi, `$1${MASK}@`)
    .replace(/\b(bearer\s+)[^\s,;"'<>]+/gi, `$1${MASK}`)
    .replace(/\b((?:x-)?api[-_ ]?key["']?\s*[:=]\s*["']?)[^\s,;"'&<>]+/gi, `$1${MASK}`)
    // Opaque tokens (letters and digits mixed, 24+ long) look like keys; no word or address does.
    .replace(/(?<![\w-])(?=[\w-]*\d)(?=[\w-]*[a-z])[\w-]{24,}(?![\w-])/gi, MASK)
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}
