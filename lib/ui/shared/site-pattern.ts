/**
 * "Sites to scan" are Chrome match patterns. These helpers turn what an analyst types or the
 * tab they are on into a pattern, and tell whether a pattern covers a URL (to offer "Stop
 * scanning this site" instead of "Scan this site").
 */
import { SITE_PATTERN, SITE_PATTERN_HINT } from '../../settings/site-pattern';

/** `https://kibana.example.org/app/discover#/` -> `https://kibana.example.org/*`. Ports are
 * left out: a match pattern without a port covers every port of the host. */
export function sitePatternForUrl(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
    if (!parsed.hostname) return null;
    return `${parsed.protocol}//${parsed.hostname}/*`;
  } catch {
    return null;
  }
}

export type PatternInput = { ok: true; pattern: string; converted: boolean } | { ok: false; message: string };

/** Accepts a match pattern, a URL or a bare host name; says what is wrong otherwise. */
export function toSitePattern(input: string): PatternInput {
  const text = input.trim();
  if (!text) return { ok: false, message: 'Enter a site, such as https://kibana.example.org/* or kibana.example.org.' };
  // Without a `*` it is a pasted URL (a pattern for one exact page is never what is meant).
  if (SITE_PATTERN.test(text) && text.includes('*')) return { ok: true, pattern: text, converted: false };
  if (!text.includes('*')) {
    const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
    const fromUrl = sitePatternForUrl(withScheme);
    // A bare word ("kibana") is more likely a typo than an intranet host: ask for a dot.
    const host = fromUrl ? new URL(withScheme).hostname : '';
    if (fromUrl && (host.includes('.') || host === 'localhost') && SITE_PATTERN.test(fromUrl)) {
      return { ok: true, pattern: fromUrl, converted: fromUrl !== text };
    }
  }
  return { ok: false, message: SITE_PATTERN_HINT };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/** Chrome match-pattern semantics for http(s): scheme `*` = http or https, host `*.x` = x and
 * its subdomains, no port = any port, `*` in the path = anything. */
export function patternMatchesUrl(pattern: string, url: string | undefined): boolean {
  if (!url) return false;
  const m = /^(https?|\*):\/\/(\*|\*\.[^/*:]+|[^/*:]+)(?::(\d{1,5}))?(\/.*)$/.exec(pattern.trim());
  if (!m) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const [, scheme, host, port, path] = m as unknown as [string, string, string, string | undefined, string];
  const protocol = parsed.protocol.slice(0, -1);
  if (scheme === '*' ? protocol !== 'http' && protocol !== 'https' : protocol !== scheme) return false;
  const hostname = parsed.hostname.toLowerCase();
  if (host !== '*') {
    const wanted = host.toLowerCase();
    if (wanted.startsWith('*.')) {
      const base = wanted.slice(2);
      if (hostname !== base && !hostname.endsWith(`.${base}`)) return false;
    } else if (hostname !== wanted) return false;
  }
  if (port !== undefined) {
    const actual = parsed.port || (protocol === 'https' ? '443' : '80');
    if (actual !== port) return false;
  }
  const pathRe = new RegExp(`^${path.split('*').map(escapeRegExp).join('.*')}$`);
  return pathRe.test(parsed.pathname + parsed.search);
}

/**
 * The origin pattern the permissions API wants for an API base URL, with its port: access to
 * `proxy:8443` is not access to every service on that host. Firefox refuses ports in match
 * patterns (bugs 1362809, 1468162), so its build asks for the host.
 */
export function originPatternForUrl(url: string, keepPort = !import.meta.env?.FIREFOX): string | null {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
    const port = keepPort && parsed.port ? `:${parsed.port}` : '';
    return `${parsed.protocol}//${parsed.hostname}${port}/*`;
  } catch {
    return null;
  }
}
