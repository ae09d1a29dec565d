/**
 * Pivot links: "Open in Shodan" and the like. A template is an https URL with exactly one
 * `{ip}` placeholder outside the host; the address goes in percent-encoded, so an IPv6
 * address's colons never read as a port or a scheme. Opening such a link is the only way an IP
 * reaches a third party, and only when the analyst asks for it.
 *
 * No default opens the API's own site: its specification and public documentation
 * (docs.ipswamp.com) name no web page per IP, and a guessed URL would be a broken link.
 *
 * No zod here: the popup, the options page and the background all use these rules, and the
 * settings schema (lib/settings/schema.ts) wraps them.
 */
import { toLookupForm } from './ip';

export interface Pivot {
  /** Stable key: a default's name, or `custom-…` for one the analyst added. */
  id: string;
  name: string;
  urlTemplate: string;
  enabled: boolean;
}

/** What a page's card may know of a pivot: never its URL (an internal tool's address stays ours). */
export interface PivotChoice {
  id: string;
  name: string;
}

export const IP_PLACEHOLDER = '{ip}';
export const MAX_PIVOTS = 20;
export const MAX_TEMPLATE_LENGTH = 500;
export const MAX_NAME_LENGTH = 40;
export const PIVOT_ID = /^[a-z0-9-]{1,40}$/;

/** Each service's public page for one address, as they link to it themselves. */
export const DEFAULT_PIVOTS: readonly Pivot[] = [
  { id: 'shodan', name: 'Shodan', urlTemplate: 'https://www.shodan.io/host/{ip}', enabled: true },
  { id: 'censys', name: 'Censys', urlTemplate: 'https://search.censys.io/hosts/{ip}', enabled: true },
  { id: 'virustotal', name: 'VirusTotal', urlTemplate: 'https://www.virustotal.com/gui/ip-address/{ip}', enabled: true },
  { id: 'abuseipdb', name: 'AbuseIPDB', urlTemplate: 'https://www.abuseipdb.com/check/{ip}', enabled: true },
  { id: 'greynoise', name: 'GreyNoise', urlTemplate: 'https://viz.greynoise.io/ip/{ip}', enabled: true },
  { id: 'ipinfo', name: 'ipinfo', urlTemplate: 'https://ipinfo.io/{ip}', enabled: true },
];

/** Stands in for the address while the template is parsed; letters only, so URL parsing keeps it. */
const MARKER = 'iplensipplaceholder';
/** An IPv6 address with every character that could break a URL, to prove the encoding holds. */
const PROBE_IP = '2001:db8::a:1';

/** What is wrong with a template, or null when it may be used. */
export function templateError(template: string): string | null {
  const text = template.trim();
  if (!text) return `Enter a URL such as https://www.shodan.io/host/${IP_PLACEHOLDER}.`;
  if (text.length > MAX_TEMPLATE_LENGTH) return `A URL template is at most ${MAX_TEMPLATE_LENGTH} characters.`;
  // URL parsing silently drops tabs and line breaks: what is shown would not be what opens.
  if (hasSpaceOrControl(text)) return 'The URL must not contain spaces, tabs or line breaks.';
  const count = text.split(IP_PLACEHOLDER).length - 1;
  if (count !== 1) return `The URL must contain ${IP_PLACEHOLDER} exactly once (it has ${count}).`;
  let url: URL;
  try {
    url = new URL(text.replace(IP_PLACEHOLDER, MARKER));
  } catch {
    return 'This is not a valid URL: write it in full, starting with https://.';
  }
  if (url.protocol !== 'https:') return `Only https:// links are allowed (this one is ${url.protocol.slice(0, 20)}).`;
  if (url.username || url.password) return 'The URL must not contain a user name or password.';
  if (url.host.toLowerCase().includes(MARKER)) return `${IP_PLACEHOLDER} must be in the path or query, not in the host name.`;
  const probe = fill(text, PROBE_IP);
  if (probe === null || probe.host !== url.host) return `The URL does not stay valid with an address in place of ${IP_PLACEHOLDER}.`;
  return null;
}

export function nameError(name: string): string | null {
  const text = name.trim();
  if (!text) return 'Give the service a name.';
  if (text.length > MAX_NAME_LENGTH) return `A name is at most ${MAX_NAME_LENGTH} characters.`;
  return null;
}

/** What is wrong with the list as a whole (each pivot's own fields aside), or null. */
export function pivotListError(pivots: readonly Pivot[]): string | null {
  if (pivots.length > MAX_PIVOTS) return `At most ${MAX_PIVOTS} services.`;
  const names = new Set<string>();
  const ids = new Set<string>();
  for (const p of pivots) {
    const name = p.name.trim().toLowerCase();
    if (names.has(name)) return `Two services are named "${p.name.trim()}": give each its own name.`;
    if (ids.has(p.id)) return `Two services share the id "${p.id}".`;
    names.add(name);
    ids.add(p.id);
  }
  return null;
}

function hasSpaceOrControl(text: string): boolean {
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code <= 0x20 || code === 0x7f || /\s/.test(ch)) return true;
  }
  return false;
}

function fill(template: string, ip: string): URL | null {
  try {
    return new URL(template.trim().replace(IP_PLACEHOLDER, encodeURIComponent(ip)));
  } catch {
    return null;
  }
}

/**
 * The link for one address, or null when the template or the address is not valid. The
 * address goes in canonical (`2001:db8::1`, an IPv4-mapped one as plain IPv4, no brackets, no
 * zone id: an interface name means nothing on another machine), then percent-encoded.
 */
export function pivotUrl(template: string, ip: string): string | null {
  const canonical = toLookupForm(ip);
  if (canonical === null || templateError(template)) return null;
  return fill(template, canonical)?.href ?? null;
}

/** The enabled, valid pivots, in the analyst's order. */
export function usablePivots(pivots: readonly Pivot[]): Pivot[] {
  return pivots.filter((p) => p.enabled && !nameError(p.name) && !templateError(p.urlTemplate));
}

/** The enabled, valid pivots with their link for `ip`, in order. */
export function pivotLinks(pivots: readonly Pivot[], ip: string): { id: string; name: string; url: string }[] {
  return usablePivots(pivots).flatMap((p) => {
    const url = pivotUrl(p.urlTemplate, ip);
    return url ? [{ id: p.id, name: p.name.trim(), url }] : [];
  });
}

/** An id for a pivot the analyst adds, unused in `pivots`. */
export function newPivotId(pivots: readonly Pivot[]): string {
  const used = new Set(pivots.map((p) => p.id));
  let n = pivots.length + 1;
  while (used.has(`custom-${n}`)) n++;
  return `custom-${n}`;
}
