/**
 * The pre-filter: one regex for text *shaped* like an address. It decides nothing:
 * check-ipv4.ts and check-ipv6.ts validate every candidate and the characters around it.
 *
 * Why every quantifier is bounded: the regex engine retries at each start position, so an
 * unbounded run (`[0-9a-f]*:`) over 100k hex letters costs n²/2 steps. With bounded groups each
 * start position costs a constant, and a whole scan stays linear in the text length.
 */

/** 1 to 3 decimal digits: an octet before range and leading-zero checks. */
const OCTET = String.raw`\d{1,3}`;

/**
 * A dot, plain or defanged as threat reports write it: `[.]`, `(.)`, `{.}`, `[dot]`, `(dot)`,
 * `{dot}` (any case).
 */
const DOT = String.raw`(?:\.|\[(?:\.|[dD][oO][tT])\]|\((?:\.|[dD][oO][tT])\)|\{(?:\.|[dD][oO][tT])\})`;

const IPV4 = `${OCTET}(?:${DOT}${OCTET}){3}`;

/** An IPv6 group: 1 to 4 hex digits. */
const HEX = '[0-9A-Fa-f]{1,4}';

/** A colon, plain or defanged as `[:]`. */
const COLON = String.raw`(?::|\[:\])`;

/**
 * An RFC 4291 text form: groups and colons, at least two colons, ending in a group or a dotted
 * IPv4 tail. The last element is tried as IPv4 first so `::ffff:1.2.3.4` is not cut at `1`.
 * The zone (`%eth0`, `%25eth0` in URLs, `%12` on Windows) is matched so it can be dropped.
 */
const IPV6 = `(?:${HEX})?(?:${COLON}(?:${HEX})?){1,7}${COLON}(?:${IPV4}|${HEX})?(?:%[0-9A-Za-z_~-]{1,32})?`;

/**
 * The alternatives never match at the same start (up to four hex digits are followed by a
 * colon or by a dot, not both), so a match contains `:` exactly when it is IPv6.
 */
export const CANDIDATE_SOURCE = `${IPV6}|${IPV4}`;

/**
 * A global search with the pattern: the reference behaviour of candidate-scan.ts, which
 * tests compare it with. findIps itself only uses the sticky form.
 */
export function candidateRegex(): RegExp {
  return new RegExp(CANDIDATE_SOURCE, 'g');
}

/** The same pattern anchored at `lastIndex`: re-reads a candidate from a later start. */
export function stickyCandidateRegex(): RegExp {
  return new RegExp(CANDIDATE_SOURCE, 'y');
}
