import { describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';
import { EXPORT_FIELDS, exportFileName, isoOrNull, rowsToCsv, rowsToJson, toExportRecord } from '@/lib/ui/shared/export-rows';
import type { IpRow } from '@/lib/ui/shared/ip-rows';
import { found, IP_INFO } from '../samples';

const T = DEFAULT_THRESHOLDS;

describe('export rows', () => {
  it('tells "not in the database" from "lookup failed (why)"', () => {
    const notFound = toExportRecord({ ip: '9.9.9.9', count: 1, result: { ip: '9.9.9.9', status: 'not-found', fetchedAt: 0 } }, T);
    const failed = toExportRecord(
      { ip: '8.8.8.8', count: 1, result: { ip: '8.8.8.8', status: 'error', error: { kind: 'timeout', message: 'No answer from the API within 15 s.' } } },
      T,
    );
    expect(notFound).toMatchObject({ severity: 'unknown', status: 'not-found', error_kind: null });
    expect(failed).toMatchObject({ severity: 'failed', status: 'error', error_kind: 'timeout', error_message: 'No answer from the API within 15 s.' });
  });

  it('carries every field of a found row, dates in ISO 8601', () => {
    const row: IpRow = {
      ip: '185.220.101.4',
      count: 3,
      result: found('185.220.101.4', {
        score: 92.5,
        threatLevel: 'CRITICAL',
        ipInfo: IP_INFO,
        whitelisted: true,
        whitelist: { entry: { source: 'ops' }, description: 'Tor exit', note: 'n', value: 'v' },
      }),
    };
    const r = toExportRecord(row, T);
    expect(r).toMatchObject({
      ip: '185.220.101.4',
      seen: 3,
      severity: 'whitelisted',
      status: 'found',
      score: 92.5,
      api_threat_level: 'CRITICAL',
      total_hits: 10,
      last_attack: '2025-01-14T09:37:40.000Z',
      whitelist_description: 'Tor exit',
      whitelist_entry: '{"source":"ops"}',
      asn: 'AS205100',
      isp: 'F3 Netze',
      fetched_at: '2025-01-15T11:00:00.000Z',
    });
    expect(Object.keys(r)).toEqual([...EXPORT_FIELDS]);
  });

  it('keeps skips and errors as fields, and pending rows as pending', () => {
    expect(toExportRecord({ ip: '10.0.0.1', count: 1, result: { ip: '10.0.0.1', status: 'skipped', reason: 'private' } }, T)).toMatchObject({
      status: 'skipped',
      skip_reason: 'private',
      score: null,
    });
    expect(
      toExportRecord(
        { ip: '1.2.3.4', count: 1, result: { ip: '1.2.3.4', status: 'error', error: { kind: 'server', message: 'Internal server error', status: 500 } } },
        T,
      ),
    ).toMatchObject({ error_kind: 'server', error_status: 500, error_message: 'Internal server error' });
    expect(toExportRecord({ ip: '1.2.3.4', count: 1 }, T).status).toBe('pending');
  });

  it('writes CSV with a header of every field and neutralised formulas', () => {
    const csv = rowsToCsv([{ ip: '1.2.3.4', count: 1, result: found('1.2.3.4', { reputation: '=cmd|calc', description: 'a, b' }) }], T);
    const [header, line] = csv.split('\r\n');
    expect(header).toBe(EXPORT_FIELDS.join(','));
    expect(line).toContain(",'=cmd|calc,");
    expect(line).toContain('"a, b"');
  });

  it('writes JSON with the source, an ISO export time and the rows', () => {
    const json = JSON.parse(rowsToJson([{ ip: '1.2.3.4', count: 2, result: found('1.2.3.4') }], T, { source: 'https://siem/x', exportedAt: Date.UTC(2025, 0, 1) }));
    expect(json).toMatchObject({ source: 'https://siem/x', exportedAt: '2025-01-01T00:00:00.000Z', count: 1 });
    expect(json.items[0].ip).toBe('1.2.3.4');
  });

  it('never writes an invalid date', () => {
    expect(isoOrNull(Number.NaN)).toBeNull();
    expect(isoOrNull(1e20)).toBeNull();
    expect(isoOrNull(null)).toBeNull();
    expect(exportFileName('kibana.example.org', Number.NaN, 'csv')).toBe('ip-reputation-kibana-example-org-export.csv');
    expect(exportFileName('', new Date(2025, 0, 2, 3, 4, 5).getTime(), 'json')).toBe('ip-reputation-list-20250102-030405.json');
  });
  it('exports IPs past the cap as "capped" with the cap that stopped them, never like private ones', () => {
    const capped = toExportRecord({ ip: '9.9.9.9', count: 1, result: { ip: '9.9.9.9', status: 'skipped', reason: 'site-cap', limit: 2000 } }, T);
    const privateIp = toExportRecord({ ip: '10.0.0.1', count: 1, result: { ip: '10.0.0.1', status: 'skipped', reason: 'private' } }, T);
    expect(capped).toMatchObject({ severity: 'capped', skip_reason: 'site-cap' });
    expect(privateIp).toMatchObject({ severity: 'skipped', skip_reason: 'private' });
    const csv = rowsToCsv([{ ip: '9.9.9.9', count: 1, result: { ip: '9.9.9.9', status: 'skipped', reason: 'page-cap', limit: 40 } }], T);
    expect(csv.split(/\r?\n/)[1]).toContain('capped');
  });
});
