/**
 * Text that is valid IPv6 syntax and still no address. Both rules trade a rare real address
 * for precision; the property tests' generators leave out exactly these shapes.
 */
import { isDigit } from './parse-ipv4';

/**
 * `a::b`, `cafe::`, `Foo::Bar`, bare `::` are scope operators far more often than addresses.
 * A compressed address with no decimal digit at all counts as one only where code never puts
 * it: in URL brackets (`[::]:22`) or before a prefix length (`::/0`).
 */
export function looksLikeCode(text: string, start: number, end: number, raw: string): boolean {
  if (!raw.includes('::')) return false;
  const zone = raw.indexOf('%');
  const limit = zone < 0 ? raw.length : zone;
  for (let i = 0; i < limit; i++) {
    const code = raw.charCodeAt(i);
    if (code >= 48 && code <= 57) return false;
  }
  const after = text.charCodeAt(end);
  if (after === 93) return text.charCodeAt(start - 1) !== 91; // [..]
  if (after === 47) return !isDigit(text.charCodeAt(end + 1)); // ../64
  return true;
}

/**
 * `00:1a:2b:ff:fe:3c:4d:5e`: eight two-digit groups is how EUI-64 identifiers and Fibre
 * Channel WWNs are written; people writing IPv6 drop leading zeros or compress.
 */
export function looksLikeEui64(raw: string): boolean {
  if (raw.length !== 23) return false;
  for (let i = 2; i < 23; i += 3) if (raw.charCodeAt(i) !== 58) return false;
  return true;
}
