/**
 * One address typed or pasted into the popup, to its canonical form. Lenient about wrapping
 * (spaces, quotes, URL scheme and path, brackets, port, zone, defang) and strict about the
 * address itself: the same four-part decimal and RFC 4291 rules as findIps.
 */
import { formatIpv6 } from './format-ipv6';
import { formatIpv4, parseIpv4 } from './parse-ipv4';
import { parseIpv6 } from './parse-ipv6';

const DEFANGS: [RegExp, string][] = [
  [/\[(?:\.|dot)\]|\((?:\.|dot)\)|\{(?:\.|dot)\}/gi, '.'],
  [/\[:\/\/\]/g, '://'],
  [/\[:\]/g, ':'],
  [/^h(?:xx|\*\*)p(s?)/i, 'http$1'],
];

const WRAPPING = /^["'<(\s]+|["'>),;.\s]+$/g;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const ZONE = /^[0-9A-Za-z_~-]{1,32}$/;

export function normalizeIp(input: string): string | null {
  // Already canonical IPv4 (strict: four octets, no leading zeros, nothing around), the usual
  // case on a server asked for hundreds of addresses at a time: nothing to unwrap.
  if (parseIpv4(input) >= 0) return input;
  let text = input.trim();
  for (const [pattern, replacement] of DEFANGS) text = text.replace(pattern, replacement);
  text = text.replace(WRAPPING, '');
  if (SCHEME.test(text)) text = hostOfUrl(text.replace(SCHEME, ''));
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0 || !isPortSuffix(text.slice(close + 1))) return null;
    text = text.slice(1, close);
  } else if (text.indexOf(':') === text.lastIndexOf(':') && text.includes('.')) {
    // `1.2.3.4:443`: one colon after a dotted address is a port. IPv6 has at least two.
    const colon = text.indexOf(':');
    if (colon >= 0) {
      if (!isPortSuffix(text.slice(colon))) return null;
      text = text.slice(0, colon);
    }
  }
  return canonical(text);
}

function canonical(text: string): string | null {
  if (!text.includes(':')) {
    const value = parseIpv4(text);
    return value < 0 ? null : formatIpv4(value);
  }
  const zone = text.indexOf('%');
  if (zone >= 0 && !ZONE.test(text.slice(zone + 1))) return null;
  const groups = parseIpv6(zone < 0 ? text : text.slice(0, zone));
  return groups ? formatIpv6(groups) : null;
}

/** `user:pass@host:port/path?query` → `host:port` (brackets kept). */
function hostOfUrl(rest: string): string {
  const authority = rest.split(/[/?#]/, 1)[0] ?? '';
  return authority.slice(authority.lastIndexOf('@') + 1);
}

function isPortSuffix(suffix: string): boolean {
  if (suffix === '') return true;
  const port = /^:(\d{1,5})$/.exec(suffix);
  return port !== null && Number(port[1]) <= 65535;
}
