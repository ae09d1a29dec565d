import { describe, expect, it } from 'vitest';
import {
  normalizeAccount,
  normalizeBulkRow,
  normalizeSingle,
  normalizeSubnet,
  normalizeTestKey,
  normalizeThreatLevel,
} from '../../../lib/api/normalize';
import { parseAnswer } from '../../../lib/api/parse';
import {
  accountSchema,
  bulkLookupSchema,
  singleLookupSchema,
  subnetLookupSchema,
  testKeySchema,
} from '../../../lib/api/schemas';
import { DOC_ACCOUNT, DOC_BULK, DOC_SINGLE, DOC_SUBNET, DOC_TEST_KEY, WHITELISTED_SINGLE } from './wire-examples';

const single = (json: unknown, ip = '8.8.8.8') => normalizeSingle(parseAnswer(singleLookupSchema, json, 'checkIP'), ip);

describe('single lookup', () => {
  it('normalises the documentation example', () => {
    expect(single(DOC_SINGLE)).toEqual({
      ip: '8.8.8.8',
      score: 13.01131,
      threatLevel: null,
      reputation: 'bot, crawler',
      totalHits: 2,
      lastAttack: '2025-11-29T09:37:40.604Z',
      whitelisted: false,
      whitelist: null,
      description: null,
      ipInfo: DOC_SINGLE.ipInfo,
    });
  });

  it('understands a whitelisted answer without ip_rep and with last_attack ""', () => {
    const rep = single(WHITELISTED_SINGLE, '1.1.1.1');
    expect(rep).toMatchObject({
      whitelisted: true,
      reputation: null,
      lastAttack: null,
      description: 'Cloudflare DNS',
      whitelist: { entry: { id: 7, reason: 'dns' }, description: 'Cloudflare DNS', note: null, value: '1.1.1.1' },
    });
    expect(rep.ipInfo).toBeUndefined();
  });

  it('takes "whitelisted" in the message as whitelisted even with whitelist null, and tolerates no details', () => {
    expect(single({ message: 'IP is whitelisted', description: 'Cloudflare DNS', details: { ip: '1.1.1.1', whitelist: null } }).whitelisted).toBe(true);
    expect(single({ message: 'IP is whitelisted', description: 'Cloudflare DNS' }, '1.1.1.1')).toMatchObject({ whitelisted: true, score: null });
  });

  it('tolerates numeric strings, numbers as text, nulls and extra fields', () => {
    const rep = single({
      message: 'IP found in database',
      details: { score: '42.5', ip: '8.8.8.8', last_attack: null, ip_rep: 'malicious', total_hits: '7', whitelist: null, extra: 1 },
      ipInfo: { asn: 13335, country: null, isp: 'Cloudflare' },
      surprise: true,
    });
    expect(rep).toMatchObject({ score: 42.5, totalHits: 7, lastAttack: null });
    expect(rep.ipInfo).toEqual({ asn: '13335', isp: 'Cloudflare' });
  });

  it('keeps markup as plain text', () => {
    const rep = single({ message: 'IP found!', description: '<script>alert(1)</script>', details: { score: 1, ip_rep: '<img src=x onerror=alert(1)>' } });
    expect(rep.description).toBe('<script>alert(1)</script>');
    expect(rep.reputation).toBe('<img src=x onerror=alert(1)>');
  });

  it.each([
    [{ message: 'IP found!', details: { score: 'high' } }, 'details.score'],
    [{ message: 'IP found!' }, 'details'],
    [{ message: 'IP found!', details: 'nope' }, 'details'],
    [[1, 2, 3], 'answer'],
    ['IP found', 'answer'],
  ])('rejects a broken shape as bad-response (%j)', (json, field) => {
    expect(() => parseAnswer(singleLookupSchema, json, 'checkIP')).toThrow(expect.objectContaining({ kind: 'bad-response', message: expect.stringContaining(field) }));
  });
});

describe('bulk lookup', () => {
  const parsed = parseAnswer(bulkLookupSchema, DOC_BULK, 'bulk');

  it('normalises the documentation example, score from score ?? threat_score', () => {
    expect(normalizeBulkRow(parsed.results[0], '1.2.3.4')).toEqual({
      ip: '1.2.3.4',
      status: 'found',
      data: {
        ip: '1.2.3.4',
        score: 85,
        threatLevel: 'CRITICAL',
        reputation: 'known attacker',
        totalHits: 142,
        lastAttack: '2026-04-15T10:30:00.000Z',
        whitelisted: false,
        whitelist: null,
        description: null,
      },
    });
    const onlyThreatScore = parseAnswer(bulkLookupSchema, { results: [{ ip: '1.2.3.4', data: { threat_score: 33 }, error: null }] }, 'bulk');
    expect(normalizeBulkRow(onlyThreatScore.results[0], '1.2.3.4')).toMatchObject({ data: { score: 33, lastAttack: null } });
  });

  it('reads a row without data as not-found unless its text says the lookup failed (texts are not documented)', () => {
    const rows = [
      { ip: '4.2.2.2', data: null, error: 'IP not found in database' },
      { ip: '4.2.2.3', data: null, error: 'No threat intelligence for this address' },
      { ip: '4.2.2.4', data: null, error: 'Lookup backend timeout' },
      { ip: '4.2.2.5', data: null, error: null },
      { ip: '4.2.2.6', data: null, error: 'Invalid IP address' },
    ];
    expect(rows.map((row) => normalizeBulkRow(row, row.ip).status)).toEqual(['not-found', 'not-found', 'error', 'error', 'error']);
    expect(normalizeBulkRow(rows[2], '4.2.2.4')).toEqual({ ip: '4.2.2.4', status: 'error', kind: 'server', message: 'Lookup backend timeout' });
  });

  it('validates each row on its own: a bad row is an error for its IP only', () => {
    expect(normalizeBulkRow({ ip: '1.2.3.4', data: { score: 'abc' }, error: null }, '1.2.3.4')).toEqual({
      ip: '1.2.3.4',
      status: 'error',
      kind: 'bad-response',
      message: expect.stringContaining('data.score'),
      // The server sent it (and may have billed it): the engine remembers it for a while.
      unreadable: true,
    });
    expect(normalizeBulkRow('garbage', '1.2.3.4')).toMatchObject({ status: 'error', kind: 'bad-response', unreadable: true });
    expect(normalizeBulkRow({ ip: '1.2.3.4', data: null, error: null }, '1.2.3.4')).toMatchObject({ kind: 'bad-response', unreadable: true });
    // A failure the server names inside a 200 is worth asking again: not marked.
    expect(normalizeBulkRow({ ip: '1.2.3.4', data: null, error: 'Lookup backend timeout' }, '1.2.3.4')).not.toHaveProperty('unreadable');
    // "n/a": no score, the rest of the row still read.
    expect(normalizeBulkRow({ ip: '1.2.3.4', data: { score: 'n/a', threat_score: 'n/a', threat_level: 'LOW', total_hits: 4 } }, '1.2.3.4')).toMatchObject({
      status: 'found',
      data: { score: null, threatLevel: 'LOW', totalHits: 4 },
    });
  });

  it.each([
    [{ whitelist: { value: '1.1.1.1', description: 'Cloudflare DNS', note: 'n', reason: 'r', range: '1.1.1.1/32', ip: '1.1.1.1' } }, 'nested object'],
    [{ whitelist: null, whitelist_value: '1.1.1.1', whitelist_description: 'Cloudflare DNS' }, 'flat fields'],
    [{ ip_rep: 'whitelisted' }, 'ip_rep'],
  ])('a whitelisted bulk row by %j (%s)', (fields: Record<string, unknown>, _how: string) => {
    const item = normalizeBulkRow({ ip: '1.1.1.1', data: { threat_score: 0, threat_level: 'LOW', total_hits: 0, ...fields } }, '1.1.1.1');
    expect(item).toMatchObject({ status: 'found', data: { whitelisted: true } });
  });

  it('the nested whitelist object fills description, note and value', () => {
    const item = normalizeBulkRow({ ip: '1.1.1.1', data: { whitelist: { value: '1.1.1.1', description: 'Cloudflare DNS', note: 'never block' } } }, '1.1.1.1');
    expect(item).toMatchObject({ data: { whitelist: { description: 'Cloudflare DNS', note: 'never block', value: '1.1.1.1' } } });
  });

  it.each([
    [{ total: 1 }, 'results'],
    [{ results: 'none' }, 'results'],
  ])('rejects a broken bulk envelope (%j)', (json, field) => {
    expect(() => parseAnswer(bulkLookupSchema, json, 'bulk')).toThrow(expect.objectContaining({ kind: 'bad-response', message: expect.stringContaining(field) }));
  });
});

describe('threat levels', () => {
  it.each([
    ['LOW', 'LOW'],
    ['critical', 'CRITICAL'],
    [' High ', 'HIGH'],
    ['UNKNOWN', 'UNKNOWN'],
    ['SEVERE', 'UNKNOWN'],
    ['', null],
    [null, null],
    [undefined, null],
  ] as const)('%s -> %s', (input, expected) => {
    expect(normalizeThreatLevel(input)).toBe(expected);
  });
});

describe('account and test-key', () => {
  it('normalises the /account example with max_api_requests null', () => {
    expect(normalizeAccount(parseAnswer(accountSchema, DOC_ACCOUNT, 'account'))).toEqual({
      organizationId: 'c0a19bd8-3e9a-49c1-863c-faa32d430720',
      key: { uid: 'ba8fbcae-8b77-4666-9ac6-ded794f57755', name: 'Cloud Firewall', currentUsage: 1, maxApiRequests: null, createdAt: '2026-03-30T18:19:56.072Z' },
      organization: {
        totalUsage: 1,
        totalQuota: 5000000,
        currentUsage: 1,
        maxApiRequests: 5000000,
        allocatedApiKeyQuota: 0,
        availableApiKeyQuota: 5000000,
        source: 'partner_status',
        unlimited: false,
      },
    });
  });

  it('accepts an account answer without organization_quota but not one without api_key', () => {
    const { organization_quota: _omit, ...keyOnly } = DOC_ACCOUNT;
    expect(normalizeAccount(parseAnswer(accountSchema, keyOnly, 'account')).organization).toBeNull();
    const { api_key: _key, ...noKey } = DOC_ACCOUNT;
    expect(() => parseAnswer(accountSchema, noKey, 'account')).toThrow(expect.objectContaining({ kind: 'bad-response' }));
  });

  it('normalises the test-key example', () => {
    expect(normalizeTestKey(parseAnswer(testKeySchema, DOC_TEST_KEY, 'test-key'))).toEqual({
      success: true,
      message: 'API key validation successful! -1 Request',
      timestamp: '2025-12-10T14:30:00.000Z',
      organizationId: 'org_abc123',
      key: { uid: 'key_xyz789', name: 'Production API Key', currentUsage: 1500, maxApiRequests: 10000, createdAt: '2025-01-01T00:00:00.000Z' },
    });
  });
});

describe('subnet', () => {
  it('normalises the documentation example', () => {
    const result = normalizeSubnet(parseAnswer(subnetLookupSchema, DOC_SUBNET, 'checkSubnet'), '1.2.3.0/24');
    expect(result.cidr).toBe('1.2.3.0/24');
    expect(result.items.map((i) => [i.ip, i.score, i.threatLevel, i.lastAttack])).toEqual([
      ['1.2.3.1', 85, 'CRITICAL', '2026-04-15T10:30:00.000Z'],
      ['1.2.3.2', 0, 'LOW', null],
    ]);
    expect(result.summary).toEqual({ total: 254, malicious: 3, clean: 251, averageScore: 1.2, foundCount: 3 });
  });

  it('rejects a subnet answer without results', () => {
    const { results: _r, ...rest } = DOC_SUBNET;
    expect(() => parseAnswer(subnetLookupSchema, rest, 'checkSubnet')).toThrow(expect.objectContaining({ kind: 'bad-response' }));
  });
});
