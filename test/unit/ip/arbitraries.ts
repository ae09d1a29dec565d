/**
 * fast-check generators for the IP property tests: addresses in every text form, with the
 * expected canonical form computed by ipaddr.js (an independent implementation), and
 * surroundings that never glue to an address.
 */
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';

/** Run counts for fc.assert, multiplied by FC_RUNS_SCALE (`npm run test:fuzz` sets it). */
export function runs(numRuns: number): { numRuns: number } {
  const scale = Number(process.env.FC_RUNS_SCALE ?? 1);
  return { numRuns: Math.max(1, Math.round(numRuns * (Number.isFinite(scale) ? scale : 1))) };
}

export interface AddressText {
  text: string;
  canonical: string;
  version: 4 | 6;
}

/** ipaddr.js RFC 5952 text, with IPv4-mapped addresses dotted (as findIps promises). */
export function referenceCanonicalOfGroups(groups: number[]): string {
  const v6 = new ipaddr.IPv6(groups);
  return v6.isIPv4MappedAddress() ? `::ffff:${v6.toIPv4Address().toString()}` : v6.toRFC5952String();
}

const DOT_FORMS = ['.', '.', '.', '[.]', '(.)', '{.}', '[dot]', '(DOT)', '{dot}'];

/** Dotted decimal, each dot plain or defanged. */
export const ipv4Text: fc.Arbitrary<AddressText> = fc
  .tuple(fc.ipV4(), fc.array(fc.constantFrom(...DOT_FORMS), { minLength: 3, maxLength: 3 }))
  .map(([ip, dots]) => {
    const octets = ip.split('.');
    const text = octets.reduce((acc, octet, i) => (i === 0 ? octet : acc + dots[i - 1] + octet), '');
    return { text, canonical: ip, version: 4 as const };
  });

/** Groups biased to zeros (so `::` has runs to compress) and to the mapped prefix. */
const groups8 = fc.oneof(
  fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 }),
  fc.tuple(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0, max: 0xffff })).map(([a, b]) => [0, 0, 0, 0, 0, 0xffff, a, b]),
);

function hex(group: number, pad: boolean, upper: 'lower' | 'upper' | 'mixed', seed: number): string {
  let s = group.toString(16);
  if (pad) s = s.padStart(4, '0');
  if (upper === 'upper') return s.toUpperCase();
  if (upper === 'mixed') return [...s].map((c, i) => ((seed >> i) & 1 ? c.toUpperCase() : c)).join('');
  return s;
}

/** Any RFC 4291 text form: any zero run (or none) compressed, padding, case, IPv4 tail. */
export const ipv6Text: fc.Arbitrary<AddressText> = fc
  .record({
    groups: groups8,
    pad: fc.boolean(),
    letterCase: fc.constantFrom('lower' as const, 'upper' as const, 'mixed' as const),
    caseSeed: fc.integer({ min: 0, max: 15 }),
    tail: fc.boolean(),
    compressPick: fc.nat(),
    colonForm: fc.constantFrom(':', ':', ':', '[:]'),
  })
  .map(({ groups, pad, letterCase, caseSeed, tail, compressPick, colonForm }) => {
    const written = groups.length - (tail ? 2 : 0);
    // Every run of zero groups among the written groups is a legal place for `::`.
    const runs: [number, number][] = [];
    for (let i = 0; i < written; i++) {
      if (groups[i] !== 0) continue;
      for (let j = i; j < written && groups[j] === 0; j++) runs.push([i, j + 1]);
    }
    const compress = runs.length && compressPick % 3 !== 0 ? runs[compressPick % runs.length]! : null;
    const parts = groups.slice(0, written).map((g, i) => hex(g, pad, letterCase, caseSeed + i));
    const v4 = tail ? `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}` : null;
    let text: string;
    if (compress) {
      const head = parts.slice(0, compress[0]).join(colonForm);
      const rest = parts.slice(compress[1]);
      if (v4) rest.push(v4);
      text = `${head}${colonForm}${colonForm}${rest.join(colonForm)}`;
    } else {
      if (v4) parts.push(v4);
      text = parts.join(colonForm);
    }
    return { text, canonical: referenceCanonicalOfGroups(groups), version: 6 as const };
  })
  .filter(({ text }) => !isExcludedByDesign(text));

/**
 * The two text shapes findIps refuses on purpose (see find-ips.ts): a compressed address with
 * no decimal digit reads as code (`a::b`), eight two-digit groups read as EUI-64 / WWN.
 */
export function isExcludedByDesign(text: string): boolean {
  const plain = text.replaceAll('[:]', ':');
  if (plain.includes('::') && !/\d/.test(plain)) return true;
  return /^([0-9a-f]{2}:){7}[0-9a-f]{2}$/i.test(plain);
}

/** Text before an address: anything, ending in a character that does not glue. */
export const prefix = fc
  .array(
    fc.constantFrom(
      'src=', 'dst: ', 'from ', 'Jan 12 03:14:07 host sshd[22]: ', 'GET /x HTTP/1.1 ', '"', "'", '(', '<',
      '{"ip":"', 'client ', 'peer=', '\t', '\n', ',', ';', '|', ' ', 'x ', 'IP: ', 'http://', '-', '»', '来自',
      '@', 'outside:', '=', '~', '#', '*',
    ),
    { maxLength: 4 },
  )
  .map((parts) => parts.join(''))
  // `outside:outside:` is a colon-separated record (`root:x:0:0:...`), whose fields findIps
  // refuses to read as an address on purpose (see labelPrefixLength); one label is a prefix.
  .filter((text) => !/:[a-z]+:$/i.test(text));

/** Text after an address: a non-gluing character first, then anything. */
export const suffix = fc
  .tuple(
    fc.constantFrom(' ', '\t', '\n', ',', ';', '|', '"', "'", ')', '>', '}', '/24', '. ', '.', '!', '?', ' - ', '-', '…', '的', '에서', '<br>', '&x=1'),
    fc.array(fc.constantFrom(' word', ' 12:34:56', ' v1.2', ' std::x', ' 00:1a:2b:3c:4d:5e', ' ok.'), { maxLength: 3 }),
  )
  .map(([first, rest]) => first + rest.join(''));

/** Token soup that produces many near-misses: the random-text property's alphabet. */
export const ipLikeText = fc
  .array(
    fc.constantFrom(
      '0', '1', '9', '10', '25', '255', '256', '01', '7f', 'ab', 'ffff', 'db8', 'x', 'g', 'v', '_',
      '.', '.', ':', ':', '::', '[.]', '(dot)', '[:]', '[', ']', '%', '%eth0', '/', '-', ' ', ' ', '\n',
      '１', '٩', 'é', '来', 'Chrome/', 'version ', 'Mozilla/',
    ),
    { maxLength: 80 },
  )
  .map((parts) => parts.join(''));
