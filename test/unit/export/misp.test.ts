import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';
import { toExportSet, type ExportContext } from '@/lib/export/export-items';
import { buildMispEvent, mispJson } from '@/lib/export/misp';
import type { IpRow } from '@/lib/ui/shared/ip-rows';
import { found, FETCHED_AT } from '../ui/samples';

const T = DEFAULT_THRESHOLDS;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const CONTEXT: ExportContext = { exportedAt: Date.UTC(2025, 0, 15, 12, 0, 0), origin: { kind: 'page' }, mediumIndicators: false };

const rows: IpRow[] = [
  { ip: '185.220.101.4', count: 2, result: found('185.220.101.4', { score: 92, reputation: 'malicious' }) },
  { ip: '198.51.100.9', count: 1, result: found('198.51.100.9', { score: 30 }) },
  { ip: '8.8.8.8', count: 1, result: found('8.8.8.8', { score: 95, whitelisted: true }) },
  { ip: '192.0.2.1', count: 1, result: { ip: '192.0.2.1', status: 'not-found', fetchedAt: FETCHED_AT } },
  { ip: '10.0.0.1', count: 1, result: { ip: '10.0.0.1', status: 'skipped', reason: 'private' } },
];

describe('MISP event', () => {
  it('has the shape "Add event from JSON" accepts', () => {
    const { Event } = JSON.parse(mispJson(buildMispEvent(toExportSet(rows, T), CONTEXT, { attributeType: 'ip-dst' })));
    expect(Event).toMatchObject({ date: '2025-01-15', timestamp: String(CONTEXT.exportedAt / 1000), threat_level_id: '1', analysis: '0', distribution: '0', published: false });
    expect(Event.uuid).toMatch(UUID_V4);
    expect(Event.info).toContain('4 IP addresses seen on a web page (address not included)');
    expect(Event.Attribute).toHaveLength(4);
    for (const a of Event.Attribute) {
      expect(a).toMatchObject({ type: 'ip-dst', category: 'Network activity', distribution: '5' });
      expect(a.uuid).toMatch(UUID_V4);
      expect(a.timestamp).toMatch(/^\d+$/);
      expect(a.Tag[0].name).toMatch(/^ip-reputation-lens:severity="[a-z]+"$/);
    }
    expect(new Set(Event.Attribute.map((a: { uuid: string }) => a.uuid)).size).toBe(4);
  });

  it('sets to_ids for high and critical only (medium by the option), with score and reputation in the comment', () => {
    const event = buildMispEvent(toExportSet(rows, T), CONTEXT, { attributeType: 'ip-src' }).Event;
    const byIp = Object.fromEntries(event.Attribute.map((a) => [a.value, a]));
    expect(byIp['185.220.101.4']).toMatchObject({ type: 'ip-src', to_ids: true, Tag: [{ name: 'ip-reputation-lens:severity="critical"' }] });
    expect(byIp['185.220.101.4']!.comment).toContain('Score 92 of 100 (Critical); reputation "malicious"');
    expect(byIp['198.51.100.9']!.to_ids).toBe(false);
    expect(byIp['8.8.8.8']).toMatchObject({ to_ids: false, Tag: [{ name: 'ip-reputation-lens:severity="whitelisted"' }] });
    expect(byIp['192.0.2.1']!.comment).toContain('Not in the threat database');
    const medium = buildMispEvent(toExportSet(rows, T), { ...CONTEXT, mediumIndicators: true }, { attributeType: 'ip-dst' }).Event;
    expect(medium.Attribute.find((a) => a.value === '198.51.100.9')!.to_ids).toBe(true);
  });

  it('carries hostile text as data only: the value is always the canonical IP, bidi controls escaped', () => {
    fc.assert(
      fc.property(fc.string(), fc.ipV4(), (text, ip) => {
        const json = mispJson(
          buildMispEvent(
            toExportSet([{ ip, count: 1, result: found(ip, { score: 90, reputation: `${text}\u202E"]` }) }], T),
            { ...CONTEXT, origin: { kind: 'page', title: `\u202E${text}` } },
            { attributeType: 'ip-dst' },
          ),
        );
        expect(json).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
        const event = JSON.parse(json).Event;
        expect(event.Attribute.map((a: { value: string }) => a.value)).toEqual([ip]);
      }),
    );
  });
});
