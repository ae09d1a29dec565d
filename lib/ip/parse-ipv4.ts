/**
 * Strict four-part decimal IPv4: exactly four octets of 1 to 3 digits, each at most 255, and
 * no leading zeros. `010.1.1.1` is refused because inet_aton reads it as octal 8.1.1.1 while
 * people mean 10.1.1.1; short forms (`127.1`, `0x7f.1`, `3232235777`) never reach four parts.
 */

const ZERO = 48;
const NINE = 57;
const DOT = 46;

/**
 * Parses `text[from, to)` and returns the address as an unsigned 32-bit number, or -1.
 * With `defanged`, any run of non-digits between octets counts as one separator: callers pass
 * that only for text the candidate pattern already shaped as `[.]`, `(dot)` and the like.
 */
export function parseIpv4(text: string, from = 0, to = text.length, defanged = false): number {
  let value = 0;
  let parts = 0;
  let i = from;
  while (i < to) {
    const start = i;
    let octet = 0;
    let code = text.charCodeAt(i);
    while (i < to && code >= ZERO && code <= NINE && i - start < 4) {
      octet = octet * 10 + (code - ZERO);
      code = text.charCodeAt(++i);
    }
    const digits = i - start;
    if (digits === 0 || digits > 3 || octet > 255) return -1;
    if (digits > 1 && text.charCodeAt(start) === ZERO) return -1;
    value = value * 256 + octet;
    parts++;
    if (i >= to) break;
    if (parts === 4) return -1;
    if (defanged) {
      while (i < to && !isDigit(text.charCodeAt(i))) i++;
    } else {
      if (code !== DOT) return -1;
      i++;
    }
    if (i === to) return -1; // a trailing separator
  }
  return parts === 4 ? value : -1;
}

export function isDigit(code: number): boolean {
  return code >= ZERO && code <= NINE;
}

export function formatIpv4(value: number): string {
  return `${Math.floor(value / 16777216)}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}
