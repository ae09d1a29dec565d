import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LookupResult } from '@/lib/lookup/types';
import { ipKey, isValidIp } from '@/lib/ip';
import { DEFAULT_THRESHOLDS, severityOf } from '@/lib/severity';
import { toExportSet, type ExportContext } from '@/lib/export/export-items';
import { reputationLabels } from '@/lib/export/export-text';
import { buildStixBundle, confidenceOf, ipPattern, patternString, scoId, stixJson, type StixObject } from '@/lib/export/stix';
import type { IpRow } from '@/lib/ui/shared/ip-rows';
import { found, IP_INFO, FETCHED_AT } from '../ui/samples';
import { stixViolations, unescapePattern, uuidV5 } from './stix-rules';

const T = DEFAULT_THRESHOLDS;
const EXPORTED_AT = Date.UTC(2025, 0, 15, 12, 30, 5, 250);
const CONTEXT: ExportContext = { exportedAt: EXPORTED_AT, origin: { kind: 'lookup' }, mediumIndicators: false };

function counter(): () => string {
  let n = 0;
  return () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
}

function bundleOf(rows: IpRow[], context: Partial<ExportContext> = {}) {
  return buildStixBundle(toExportSet(rows, T), { ...CONTEXT, ...context }, { newUuid: counter() });
}

const byType = (objects: StixObject[], type: string) => objects.filter((o) => o.type === type);

describe('STIX deterministic ids', () => {
  it('equal the STIX 2.1 specification example and the vectors other tools derive', () => {
    // Section 2.9 of STIX 2.1 shows 198.51.100.3 as ipv4-addr--28bb3599-…; the IPv6 and AS
    // vectors are the ones published STIX libraries derive for 2001:db8::1 and AS15139.
    expect(scoId('ipv4-addr', { value: '198.51.100.3' })).toBe('ipv4-addr--28bb3599-77cd-5a82-a950-b5bc3caf07c4');
    expect(scoId('ipv6-addr', { value: '2001:db8::1' })).toBe('ipv6-addr--6469e3a9-b053-5e34-a025-9396ae051d26');
    expect(scoId('autonomous-system', { number: 15139 })).toBe('autonomous-system--3aa27478-50b5-5ab8-9da9-cdc12b657fff');
  });

  it('agree with a UUIDv5 written out with node:crypto', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => scoId('ipv4-addr', { value: ip }) === `ipv4-addr--${uuidV5(`{"value":"${ip}"}`)}`),
    );
    expect(uuidV5('{"value":"198.51.100.3"}')).toBe('28bb3599-77cd-5a82-a950-b5bc3caf07c4');
  });

  it('give one IP one id whatever its spelling on the page', () => {
    const a = bundleOf([{ ip: '2001:DB8:0::1', count: 1, result: found('2001:DB8:0::1', { score: 90 }) }]);
    const b = bundleOf([{ ip: '2001:db8::1', count: 4, result: found('2001:db8::1', { score: 10 }) }]);
    expect(byType(a.objects, 'ipv6-addr')[0]!.id).toBe(byType(b.objects, 'ipv6-addr')[0]!.id);
    expect(byType(a.objects, 'ipv6-addr')[0]!.value).toBe('2001:db8::1');
  });
});

describe('STIX bundle', () => {
  const rows: IpRow[] = [
    { ip: '185.220.101.4', count: 3, result: found('185.220.101.4', { score: 92.4, reputation: 'Known attacker, bot', ipInfo: IP_INFO }) },
    { ip: '2001:db8::7', count: 1, result: found('2001:db8::7', { score: 60, ipInfo: { ...IP_INFO, asn: '205100' } }) },
    { ip: '198.51.100.9', count: 1, result: found('198.51.100.9', { score: 30 }) },
    { ip: '8.8.8.8', count: 1, result: found('8.8.8.8', { score: 95, whitelisted: true }) },
    { ip: '203.0.113.50', count: 1, result: found('203.0.113.50', { score: 0, totalHits: 0 }) },
    { ip: '192.0.2.1', count: 1, result: { ip: '192.0.2.1', status: 'not-found', fetchedAt: FETCHED_AT } },
    { ip: '10.0.0.1', count: 1, result: { ip: '10.0.0.1', status: 'skipped', reason: 'private' } },
    { ip: '1.1.1.1', count: 1, result: { ip: '1.1.1.1', status: 'error', error: { kind: 'timeout', message: 'x' } } },
    { ip: '9.9.9.9', count: 1, result: { ip: '9.9.9.9', status: 'skipped', reason: 'page-cap' } },
    { ip: '4.4.4.4', count: 1 },
  ];

  it('follows the STIX 2.1 rules', () => {
    const bundle = bundleOf(rows);
    expect(stixViolations(bundle)).toEqual([]);
    expect(stixViolations(JSON.parse(stixJson(bundle)))).toEqual([]);
  });

  it('makes indicators for high and critical only; never for whitelisted, clean, private, skipped or failed', () => {
    const indicators = byType(bundleOf(rows).objects, 'indicator');
    expect(indicators.map((i) => i.pattern)).toEqual(["[ipv4-addr:value = '185.220.101.4']", "[ipv6-addr:value = '2001:db8::7']"]);
    const medium = byType(bundleOf(rows, { mediumIndicators: true }).objects, 'indicator');
    expect(medium.map((i) => i.pattern)).toContain("[ipv4-addr:value = '198.51.100.9']");
    expect(medium).toHaveLength(3);
  });

  it('lists answered IPs as observables and leaves private, skipped, failed and pending ones out', () => {
    const bundle = bundleOf(rows);
    const values = [...byType(bundle.objects, 'ipv4-addr'), ...byType(bundle.objects, 'ipv6-addr')].map((o) => o.value);
    expect(values.sort()).toEqual(['185.220.101.4', '192.0.2.1', '198.51.100.9', '2001:db8::7', '203.0.113.50', '8.8.8.8'].sort());
    const note = byType(bundle.objects, 'note')[0]!;
    expect(note.content).toContain('4 more addresses were left out');
  });

  it('dates the indicator from the lookup, rounds the score into confidence, labels from the reputation', () => {
    const ind = byType(bundleOf(rows).objects, 'indicator')[0]!;
    expect(ind).toMatchObject({
      valid_from: new Date(FETCHED_AT).toISOString(),
      created: '2025-01-15T12:30:05.250Z',
      confidence: 92,
      labels: ['known-attacker', 'bot'],
      created_by_ref: byType(bundleOf(rows).objects, 'identity')[0]!.id,
      pattern_version: '2.1',
    });
  });

  it('links network details: one autonomous-system shared by belongs_to_refs, one location by located-at', () => {
    const bundle = bundleOf(rows);
    const systems = byType(bundle.objects, 'autonomous-system');
    expect(systems).toEqual([expect.objectContaining({ number: 205100, name: 'F3 Netze e.V.' })]);
    const withAs = byType(bundle.objects, 'ipv4-addr').find((o) => o.value === '185.220.101.4')!;
    expect(withAs.belongs_to_refs).toEqual([systems[0]!.id]);
    const locations = byType(bundle.objects, 'location');
    expect(locations).toEqual([expect.objectContaining({ country: 'DE', name: 'Germany' })]);
    const located = byType(bundle.objects, 'relationship').filter((r) => r.relationship_type === 'located-at');
    expect(located.map((r) => r.target_ref)).toEqual([locations[0]!.id, locations[0]!.id]);
  });

  it('says where the IPs were seen: the page address only when the analyst included it', () => {
    const hidden = byType(bundleOf(rows, { origin: { kind: 'page' } }).objects, 'note')[0]!;
    expect(hidden.content).toContain('seen on a web page (address not included)');
    const shown = byType(bundleOf(rows, { origin: { kind: 'page', url: 'https://siem.example/x?q=1', title: 'Alerts' } }).objects, 'note')[0]!;
    expect(shown.content).toContain('seen on the web page "Alerts" <https://siem.example/x?q=1>');
  });

  it('has no note and no indicator when nothing was answered', () => {
    const bundle = bundleOf([{ ip: '10.0.0.1', count: 1, result: { ip: '10.0.0.1', status: 'skipped', reason: 'private' } }]);
    expect(bundle.objects.map((o) => o.type)).toEqual(['identity']);
    expect(stixViolations(bundle)).toEqual([]);
  });
});

describe('STIX pattern and confidence', () => {
  it('builds a pattern only from one valid address, escaped by the grammar', () => {
    expect(ipPattern('203.0.113.7')).toBe("[ipv4-addr:value = '203.0.113.7']");
    expect(ipPattern("1.2.3.4'] OR [x:y = '1")).toBeNull();
    expect(ipPattern('fe80::1%eth0')).toBeNull();
    expect(patternString("a'b\\c")).toBe("'a\\'b\\\\c'");
    expect(unescapePattern(patternString("a'b\\c").slice(1, -1))).toBe("a'b\\c");
  });

  it('maps score to confidence, and the threat level when there is no score', () => {
    expect(confidenceOf({ score: 82.6, threatLevel: null })).toBe(83);
    expect(confidenceOf({ score: 140, threatLevel: null })).toBe(100);
    expect(confidenceOf({ score: null, threatLevel: 'CRITICAL' })).toBe(85);
    expect(confidenceOf({ score: null, threatLevel: 'MEDIUM' })).toBe(50);
    expect(confidenceOf({ score: null, threatLevel: 'LOW' })).toBe(15);
    expect(confidenceOf({ score: null, threatLevel: 'UNKNOWN' })).toBeNull();
  });

  it('turns hostile reputation text into plain labels', () => {
    expect(reputationLabels("x'] OR [ipv4-addr:value = '1.1.1.1")).toEqual(['x-or-ipv4-addr-value-1-1-1-1']);
    expect(reputationLabels('\u202Emalicious\u202C, "bot"')).toEqual(['malicious', 'bot']);
    expect(reputationLabels(null)).toEqual([]);
  });
});

/** Text a page or the API could send to break out of a string, a pattern or a reference. */
const hostileText = fc.oneof(
  fc.string(),
  fc.constantFrom("'", "\\'", ']', '[', "'] OR [ipv4-addr:value = '6.6.6.6", '\u202E', '\u2066', '"', '--', 'identity--x', '\u0000', '\\'),
  fc.array(fc.constantFrom("'", ']', '[', '\u202E', '"', 'a', ' ', ',', '\\', '\u2069'), { maxLength: 20 }).map((a) => a.join('')),
);

const resultArb = (ip: string): fc.Arbitrary<LookupResult | undefined> =>
  fc.oneof(
    fc.record({
      score: fc.option(fc.double({ min: -10, max: 150, noNaN: true }), { nil: null }),
      reputation: fc.option(hostileText, { nil: null }),
      description: fc.option(hostileText, { nil: null }),
      whitelisted: fc.boolean(),
      threatLevel: fc.constantFrom(null, 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL', 'UNKNOWN'),
      totalHits: fc.option(fc.nat(1000), { nil: null }),
      asn: fc.option(fc.oneof(fc.nat().map((n) => `AS${n}`), hostileText), { nil: undefined }),
      as_name: fc.option(hostileText, { nil: undefined }),
      country_code: fc.option(fc.oneof(fc.constantFrom('DE', 'us', 'Z]'), hostileText), { nil: undefined }),
      country: fc.option(hostileText, { nil: undefined }),
      fetchedAt: fc.integer({ min: 0, max: 4_102_444_800_000 }),
    }).map(({ fetchedAt, asn, as_name, country_code, country, ...d }): LookupResult => ({
      ip,
      status: 'found',
      fetchedAt,
      data: { ip, lastAttack: null, whitelist: null, ...d, ipInfo: { asn, as_name, country_code, country } } as never,
    })),
    fc.constant<LookupResult>({ ip, status: 'not-found', fetchedAt: 1 }),
    fc.constant<LookupResult>({ ip, status: 'skipped', reason: 'private' }),
    fc.constant<LookupResult>({ ip, status: 'error', error: { kind: 'server', message: "'] evil" } }),
    fc.constant(undefined),
  );

const rowsArb = fc
  .array(fc.oneof(fc.ipV4(), fc.ipV6(), hostileText), { maxLength: 12 })
  .chain((ips) => fc.tuple(...ips.map((ip) => fc.tuple(fc.constant(ip), fc.nat(50), resultArb(ip)))))
  .map((rows) => rows.map(([ip, count, result]): IpRow => (result ? { ip, count, result } : { ip, count })));

describe('STIX bundle over random result sets (property)', () => {
  it('always follows the rules; hostile text changes no pattern and no reference', () => {
    fc.assert(
      fc.property(rowsArb, hostileText, hostileText, fc.boolean(), (rows, title, url, medium) => {
        const context: ExportContext = { exportedAt: EXPORTED_AT, origin: { kind: 'page', title, url }, mediumIndicators: medium };
        const bundle = JSON.parse(stixJson(buildStixBundle(toExportSet(rows, T), context, { newUuid: counter() })));
        expect(stixViolations(bundle)).toEqual([]);
        const objects = bundle.objects as StixObject[];
        const addresses = objects.filter((o) => o.type === 'ipv4-addr' || o.type === 'ipv6-addr').map((o) => o.value as string);
        // Every pattern is exactly the pattern of one exported address.
        for (const ind of byType(objects, 'indicator')) {
          expect(addresses.map((a) => `[${a.includes(':') ? 'ipv6-addr' : 'ipv4-addr'}:value = '${a}']`)).toContain(ind.pattern);
        }
        // Indicators exactly for the first answer of each address whose severity says so.
        const firstAnswer = new Map<string, IpRow>();
        for (const r of rows) {
          if ((r.result?.status === 'found' || r.result?.status === 'not-found') && isValidIp(r.ip.trim()) && !firstAnswer.has(ipKey(r.ip.trim()))) {
            firstAnswer.set(ipKey(r.ip.trim()), r);
          }
        }
        const flagged = [...firstAnswer.values()].filter((r) => ['critical', 'high', ...(medium ? ['medium'] : [])].includes(severityOf(r.result, T)));
        expect(byType(objects, 'indicator')).toHaveLength(flagged.length);
        expect(addresses).toHaveLength(firstAnswer.size);
      }),
      { numRuns: 150 },
    );
  });
});
