/**
 * What may touch an address. An address glued to a letter, digit or underscore (`v10.2.0.12`,
 * `ab1.2.3.4`, the .NET cache path `v4.0_4.0.0.0__b03f5f7f`) or to a dot that continues a number
 * (`1.2.3.4.5`, OIDs) is part of something else. A dot followed by a space ends a sentence.
 */

/**
 * Letters and digits of scripts that put spaces between words. CJK, Hangul and Thai text puts
 * particles right next to an address (`来自1.2.3.4的`, `1.2.3.4에서`), so those do not glue.
 * Full-width digits are \p{Nd} and full-width Latin letters are Latin, so both glue.
 */
const UNICODE_GLUE = /[\p{Nd}\p{sc=Latin}\p{sc=Greek}\p{sc=Cyrillic}]/u;

/** ASCII letters, digits and `_`: the characters of a word, as in regex `\w`. */
export function isAsciiWord(code: number): boolean {
  return (code >= 48 && code <= 57) || ((code | 32) >= 97 && (code | 32) <= 122) || code === 95;
}

export function isHexDigit(code: number): boolean {
  return (code >= 48 && code <= 57) || ((code | 32) >= 97 && (code | 32) <= 102);
}

/** True when the character at `i` would make an address next to it part of a longer word. */
export function isGlueAt(text: string, i: number): boolean {
  if (i < 0 || i >= text.length) return false;
  const code = text.charCodeAt(i);
  if (code < 128) return isAsciiWord(code);
  let cp = text.codePointAt(i)!;
  // Looking backwards we may land on the low half of a surrogate pair.
  if (code >= 0xdc00 && code <= 0xdfff && i > 0) cp = text.codePointAt(i - 1)!;
  return UNICODE_GLUE.test(String.fromCodePoint(cp));
}

/**
 * True when the character before `start` glues to an address there. A percent escape is a
 * separator, not a word: `http%3A%2F%2F45.155.205.233` (URL-encoded query strings in logs).
 */
export function isGlueBefore(text: string, start: number): boolean {
  if (!isGlueAt(text, start - 1)) return false;
  return !(text.charCodeAt(start - 3) === 37 && isHexDigit(text.charCodeAt(start - 2)) && isHexDigit(text.charCodeAt(start - 1)));
}

/**
 * Length of the dot separator (`.`, `[.]`, `(.)`, `{.}`, `[dot]`...) that ends just before
 * `end`, or 0 when there is none.
 */
export function dotEndingAt(text: string, end: number): number {
  const last = text.charCodeAt(end - 1);
  if (last === 46) return 1;
  const open = OPENER[last];
  if (open === undefined) return 0;
  if (text.charCodeAt(end - 2) === 46 && text.charCodeAt(end - 3) === open) return 3;
  if (end >= 5 && text.slice(end - 4, end - 1).toLowerCase() === 'dot' && text.charCodeAt(end - 5) === open) return 5;
  return 0;
}

/** Length of the dot separator starting at `start`, or 0 when there is none. */
export function dotStartingAt(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === 46) return 1;
  const close = CLOSER[first];
  if (close === undefined) return 0;
  if (text.charCodeAt(start + 1) === 46 && text.charCodeAt(start + 2) === close) return 3;
  if (text.slice(start + 1, start + 4).toLowerCase() === 'dot' && text.charCodeAt(start + 4) === close) return 5;
  return 0;
}

/** Length of a colon (`:` or defanged `[:]`) starting at `start`, or 0. */
export function colonStartingAt(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === 58) return 1;
  if (first === 91 && text.charCodeAt(start + 1) === 58 && text.charCodeAt(start + 2) === 93) return 3;
  return 0;
}

/** Length of a colon (`:` or `[:]`) ending just before `end`, or 0. */
export function colonEndingAt(text: string, end: number): number {
  const last = text.charCodeAt(end - 1);
  if (last === 58) return 1;
  if (last === 93 && text.charCodeAt(end - 2) === 58 && text.charCodeAt(end - 3) === 91) return 3;
  return 0;
}

/**
 * `outside:2001:db8::1`, `Address:2001:db8::1`: a word of letters (one beyond a-f), then one
 * colon, is a label (Cisco ASA interface names, Windows event fields), not a first IPv6 group.
 * Digits rule a word out: `g2001:db8::1` is a mangled address, not the label `g2001`. So does
 * a colon before the word: in `cloudsdk:x:1000:1000::/home` (/etc/passwd) `x` is a field of a
 * colon-separated record. The address may start with `::` (`Address:::1`); `std::vector`
 * stays code, since `:vector` is no address.
 * Returns the length of `label:` from `start` in `raw`, or 0 when `raw` does not start so.
 */
export function labelPrefixLength(text: string, start: number, raw: string): number {
  const colon = raw.indexOf(':');
  if (colon < 0 || colon > 4) return 0;
  const labelEnd = start + colon;
  let labelled = false;
  let i = labelEnd - 1;
  for (; i >= 0 && labelEnd - i <= 32; i--) {
    const code = text.charCodeAt(i);
    if (!isAsciiWord(code)) break;
    if (code >= 48 && code <= 57) return 0;
    if (!isHexDigit(code)) labelled = true;
  }
  if (!labelled || labelEnd - i - 1 < 2 || text.charCodeAt(i) === 58) return 0;
  return colon + 1;
}

/**
 * A dot right before an address continues a number (`5.1.2.3.4`) or starts an OID
 * (`.1.3.6.1`, as snmpwalk writes them). Only an ellipsis or a `..` range may precede it.
 */
export function isDottedBefore(text: string, start: number): boolean {
  const dot = dotEndingAt(text, start);
  return dot > 0 && !(dot === 1 && text.charCodeAt(start - 2) === 46);
}

// Bracket pairs by char code: ( ) [ ] { }
const OPENER: Record<number, number> = { 41: 40, 93: 91, 125: 123 };
const CLOSER: Record<number, number> = { 40: 41, 91: 93, 123: 125 };
