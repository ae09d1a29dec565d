/**
 * RFC 4291 section 2.2 text forms: full, `::`-compressed, and with a dotted IPv4 tail. Input is
 * plain text (no defang, no zone, no brackets); the result is the eight 16-bit groups or null.
 */
import { parseIpv4 } from './parse-ipv4';

const COLON = 58;
const DOT = 46;

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 32; // A-F → a-f
  if (lower >= 97 && lower <= 102) return lower - 87;
  return -1;
}

/**
 * Without `::` an address has exactly seven colons (six before an IPv4 tail). Checking that
 * first turns away times (`12:34:56`) and MACs before any parsing: they are most candidates.
 */
function hasPossibleColonCount(text: string): boolean {
  let colons = 0;
  let compressed = false;
  let dotted = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === COLON) {
      colons++;
      if (text.charCodeAt(i + 1) === COLON) compressed = true;
    } else if (code === DOT) {
      dotted = true;
    }
  }
  return compressed ? colons <= 8 : colons === (dotted ? 6 : 7);
}

export function parseIpv6(text: string): number[] | null {
  const n = text.length;
  if (n < 2 || !hasPossibleColonCount(text)) return null;
  const groups: number[] = [];
  let gap = -1; // how many groups precede the `::`
  let i = 0;
  if (text.charCodeAt(0) === COLON) {
    if (text.charCodeAt(1) !== COLON) return null; // a lone leading colon
    gap = 0;
    i = 2;
  }
  while (i < n) {
    const start = i;
    let value = 0;
    let digit = hexValue(text.charCodeAt(i));
    while (digit >= 0 && i - start < 5) {
      value = value * 16 + digit;
      digit = hexValue(text.charCodeAt(++i));
    }
    if (i < n && text.charCodeAt(i) === DOT) {
      // The IPv4 tail takes the last two groups and must end the address.
      const v4 = parseIpv4(text, start, n);
      if (v4 < 0) return null;
      groups.push(Math.floor(v4 / 65536), v4 & 0xffff);
      i = n;
      break;
    }
    const length = i - start;
    if (length === 0 || length > 4) return null;
    groups.push(value);
    if (groups.length > 8) return null;
    if (i === n) break;
    if (text.charCodeAt(i) !== COLON) return null;
    i++;
    if (i < n && text.charCodeAt(i) === COLON) {
      if (gap >= 0) return null; // a second `::`
      gap = groups.length;
      i++;
    } else if (i === n) {
      return null; // a lone trailing colon
    }
  }
  if (gap < 0) return groups.length === 8 ? groups : null;
  // `::` stands for at least one group of zeros (RFC 4291), so at most seven are written.
  if (groups.length > 7) return null;
  const full = new Array<number>(8).fill(0);
  const tail = groups.length - gap;
  for (let k = 0; k < gap; k++) full[k] = groups[k]!;
  for (let k = 0; k < tail; k++) full[8 - tail + k] = groups[gap + k]!;
  return full;
}
