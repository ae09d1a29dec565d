/** The gateway's pure parts: configuration messages, the wire shapes, tokens. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeBulkRow, normalizeSingle } from '../../../lib/api/normalize';
import { singleLookupSchema } from '../../../lib/api/schemas';
import type { Reputation } from '../../../lib/api/types';
import { ConfigError, loadConfig } from '../../../gateway/src/config';
import { redirectAllowed } from '../../../gateway/src/sign-in';
import { credentialOf, hashToken, newToken } from '../../../gateway/src/tokens';
import { AnswerDecoder, decodeAnswer, encodeAnswer } from '../../../gateway/src/store/answer-codec';
import { bulkRowJson, bulkRowOf, provenanceJson, provenanceOf, singleBodyOf } from '../../../gateway/src/wire';

const sso = { GATEWAY_OIDC_ISSUER: 'https://idp.example', GATEWAY_OIDC_AUDIENCE: 'gw' };

describe('configuration', () => {
  const base = { GATEWAY_UPSTREAM_KEY: 'k-123' };
  it('has the documented defaults', () => {
    const config = loadConfig(base);
    expect(config).toMatchObject({ upstreamUrl: 'https://ipswamp.com/api/v1', host: '127.0.0.1', port: 8790, redisUrls: [], allowedOrigins: null });
    expect(config.ttls).toEqual({ foundMs: 86_400_000, notFoundMs: 21_600_000, detailedMs: 604_800_000 });
  });
  it.each([
    [{}, /GATEWAY_UPSTREAM_KEY/],
    [{ ...base, GATEWAY_PORT: 'eighty' }, /GATEWAY_PORT/],
    [{ ...base, GATEWAY_REDIS_URL: 'redis://a:1,http://b:2' }, /GATEWAY_REDIS_URL/],
    [{ ...base, GATEWAY_UPSTREAM_URL: 'ftp://x' }, /GATEWAY_UPSTREAM_URL/],
    [{ ...base, GATEWAY_TTL_FOUND_S: '-5' }, /GATEWAY_TTL_FOUND_S/],
    [{ ...base, GATEWAY_TLS_CERT: '/x.pem' }, /GATEWAY_TLS_CERT and GATEWAY_TLS_KEY/],
    [{ ...base, GATEWAY_UPSTREAM_KEY_FILE: '/nonexistent/key' }, /GATEWAY_UPSTREAM_KEY and GATEWAY_UPSTREAM_KEY_FILE are both set/],
    [{ GATEWAY_UPSTREAM_KEY_FILE: '/nonexistent/key' }, /GATEWAY_UPSTREAM_KEY_FILE: cannot read/],
    [{ ...base, GATEWAY_OIDC_ISSUER: 'https://idp.example' }, /GATEWAY_OIDC_ISSUER is set without GATEWAY_OIDC_AUDIENCE/],
    [{ ...base, GATEWAY_OIDC_AUDIENCE: 'gw' }, /GATEWAY_OIDC_AUDIENCE is set without GATEWAY_OIDC_ISSUER/],
    [{ ...base, GATEWAY_OIDC_ISSUER: 'not a url', GATEWAY_OIDC_AUDIENCE: 'gw' }, /GATEWAY_OIDC_ISSUER/],
    [{ ...base, GATEWAY_OIDC_ISSUER: 'http://idp.example', GATEWAY_OIDC_AUDIENCE: 'gw' }, /GATEWAY_OIDC_ISSUER must use https/],
    [{ ...base, GATEWAY_OIDC_ISSUER: 'https://idp.example', GATEWAY_OIDC_AUDIENCE: 'gw', GATEWAY_OIDC_ALGORITHMS: 'RS256,HS256' }, /GATEWAY_OIDC_ALGORITHMS/],
    [{ ...base, GATEWAY_OIDC_ISSUER: 'https://idp.example', GATEWAY_OIDC_AUDIENCE: 'gw', GATEWAY_OIDC_ALGORITHMS: 'none' }, /GATEWAY_OIDC_ALGORITHMS/],
    [{ ...base, GATEWAY_OIDC_GROUP: 'soc' }, /GATEWAY_OIDC_GROUP is set but single sign-on is off/],
    [{ ...base, GATEWAY_OIDC_ISSUER: 'https://idp.example', GATEWAY_OIDC_AUDIENCE: 'gw', GATEWAY_OIDC_BUDGET: '0' }, /GATEWAY_OIDC_BUDGET/],
    [{ ...base, GATEWAY_OIDC_CLIENT_ID: 'gw' }, /GATEWAY_OIDC_CLIENT_ID is set without GATEWAY_OIDC_ISSUER/],
    [{ ...base, GATEWAY_OIDC_CLIENT_SECRET: 's' }, /GATEWAY_OIDC_CLIENT_SECRET is set without GATEWAY_OIDC_CLIENT_ID/],
    [{ ...base, ...sso, GATEWAY_OIDC_CLIENT_ID: 'gw', GATEWAY_PUBLIC_URL: 'https://gw.example' }, /GATEWAY_OIDC_CLIENT_SECRET \(or GATEWAY_OIDC_CLIENT_SECRET_FILE\) is required/],
    [{ ...base, ...sso, GATEWAY_OIDC_CLIENT_ID: 'gw', GATEWAY_OIDC_CLIENT_SECRET_FILE: '/nonexistent/secret', GATEWAY_PUBLIC_URL: 'https://gw.example' }, /GATEWAY_OIDC_CLIENT_SECRET_FILE: cannot read/],
    [{ ...base, ...sso, GATEWAY_OIDC_CLIENT_ID: 'gw', GATEWAY_OIDC_CLIENT_SECRET: 'client-secret-value' }, /GATEWAY_PUBLIC_URL is required/],
    [{ ...base, ...sso, GATEWAY_OIDC_CLIENT_ID: 'gw', GATEWAY_OIDC_CLIENT_SECRET: 'client-secret-value', GATEWAY_PUBLIC_URL: 'https://gw.example', GATEWAY_SIGN_IN_REDIRECTS: 'http://x.chromiumapp.org/' }, /GATEWAY_SIGN_IN_REDIRECTS/],
    [{ ...base, ...sso, GATEWAY_OIDC_CLIENT_ID: 'gw', GATEWAY_OIDC_CLIENT_SECRET: 'client-secret-value', GATEWAY_PUBLIC_URL: 'https://gw.example', GATEWAY_SESSION_TTL_S: '7200', GATEWAY_SIGN_IN_MAX_S: '3600' }, /GATEWAY_SESSION_TTL_S must be shorter/],
  ])('names the variable at fault (%o)', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
  it('reads a cluster as several Redis URLs, and never quotes the key in a message', () => {
    expect(loadConfig({ ...base, GATEWAY_REDIS_URL: 'redis://a:1, redis://b:2' }).redisUrls).toEqual(['redis://a:1', 'redis://b:2']);
    expect(() => loadConfig({ GATEWAY_UPSTREAM_KEY: 'secret-value', GATEWAY_PORT: 'x' })).not.toThrow(/secret-value/);
  });
  it('turns single sign-on on with an issuer and an audience, asymmetric algorithms only by default', () => {
    expect(loadConfig(base).oidc).toBeNull();
    const { oidc } = loadConfig({ ...base, GATEWAY_OIDC_ISSUER: 'https://idp.example/realms/soc', GATEWAY_OIDC_AUDIENCE: 'gw', GATEWAY_OIDC_GROUP: 'soc' });
    expect(oidc).toMatchObject({ issuer: 'https://idp.example/realms/soc', audience: 'gw', group: 'soc', groupClaim: 'groups', budget: null });
    expect(oidc!.algorithms.some((a) => a === 'none' || a.startsWith('HS'))).toBe(false);
    expect(loadConfig({ ...base, GATEWAY_OIDC_ISSUER: 'http://127.0.0.1:9000', GATEWAY_OIDC_AUDIENCE: 'gw' }).oidc?.issuer).toBe('http://127.0.0.1:9000');
  });
  it('turns sign-in on with a client id, its secret and the public URL, never quoting the secret', () => {
    expect(loadConfig({ ...base, ...sso }).signIn).toBeNull();
    const { signIn } = loadConfig({ ...base, ...sso, GATEWAY_OIDC_CLIENT_ID: 'gw', GATEWAY_OIDC_CLIENT_SECRET: 'client-secret-value', GATEWAY_PUBLIC_URL: 'https://gw.example/' });
    expect(signIn).toMatchObject({ clientId: 'gw', publicUrl: 'https://gw.example', scopes: 'openid email profile', redirects: null, sessionTtlMs: 900_000, signInMaxMs: 43_200_000 });
    expect(() => loadConfig({ ...base, ...sso, GATEWAY_OIDC_CLIENT_ID: 'gw', GATEWAY_OIDC_CLIENT_SECRET: 'client-secret-value' })).not.toThrow(/client-secret-value/);
  });
  it('hands a sign-in only to an extension redirect URL', () => {
    const any = { redirects: null };
    expect(redirectAllowed(any, 'https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/')).toBe(true);
    expect(redirectAllowed(any, `https://${'0f'.repeat(20)}.extensions.allizom.org/`)).toBe(true);
    for (const bad of ['https://evil.example/', 'https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org.evil.example/', 'https://abc.chromiumapp.org/', 'https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/#x', 'https://u:p@abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/', 'not a url']) {
      expect(redirectAllowed(any, bad)).toBe(false);
    }
    const listed = { redirects: ['https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/', 'https://exact.example/cb'] };
    expect(redirectAllowed(listed, 'https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/cb')).toBe(true);
    expect(redirectAllowed(listed, 'https://exact.example/cb')).toBe(true);
    expect(redirectAllowed(listed, 'https://exact.example/cb2')).toBe(false);
    expect(redirectAllowed(listed, `https://${'0f'.repeat(20)}.extensions.allizom.org/`)).toBe(false);
  });
});

const text = fc.option(fc.string({ maxLength: 20 }), { nil: null });
const reputation: fc.Arbitrary<Reputation> = fc
  .record({
    ip: fc.constantFrom('185.220.101.1', '2a0b:4140:ddd::1'),
    score: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: null }),
    threatLevel: fc.constantFrom('LOW', 'MEDIUM', 'HIGH', 'CRITICAL', 'UNKNOWN', null),
    reputation: fc.option(fc.constantFrom('malicious', 'clean', 'bot, crawler'), { nil: null }),
    totalHits: fc.option(fc.nat(), { nil: null }),
    lastAttack: fc.option(fc.date({ min: new Date(2020, 0, 1), max: new Date(2030, 0, 1), noInvalidDate: true }).map((d) => d.toISOString()), { nil: null }),
    whitelisted: fc.boolean(),
    description: text,
    wl: fc.record({ description: fc.option(fc.string({ minLength: 1, maxLength: 10 }).filter((s) => s.trim() !== ''), { nil: null }), note: text, value: text }),
  })
  .map(({ wl, ...rep }) => ({
    ...rep,
    // Not whitelisted: the flat fields are null (a value in one of them means whitelisted).
    whitelist: rep.whitelisted ? { entry: null, ...wl } : null,
  }));

describe('wire shapes', () => {
  const provenance = provenanceOf('hit', 0, 1000);
  it('bulk rows read back through lib/api as the same reputation (description aside: bulk rows carry none)', () => {
    fc.assert(
      fc.property(reputation, (rep) => {
        const row = bulkRowOf(rep.ip, { status: 'found', data: rep }, provenance);
        const back = normalizeBulkRow(JSON.parse(JSON.stringify(row)), rep.ip);
        expect(back).toEqual({ ip: rep.ip, status: 'found', data: { ...rep, description: null }, gateway: { cache: 'hit', ageMs: 1000, sightings: null } });
      }),
    );
  });
  it('single answers read back through lib/api as the same reputation, ipInfo included (threat level aside: single answers carry none)', () => {
    fc.assert(
      fc.property(reputation, (rep) => {
        const info = { asn: 'AS1', country: 'Nowhere' };
        const body = JSON.parse(JSON.stringify(singleBodyOf(rep, info, provenance)));
        const back = normalizeSingle(singleLookupSchema.parse(body), rep.ip);
        expect(back).toEqual({ ...rep, threatLevel: null, ipInfo: info });
      }),
    );
  });
  it('not-found rows read back as not found, and carry the provenance', () => {
    const row = bulkRowOf('9.9.9.9', { status: 'not-found' }, provenance);
    expect(normalizeBulkRow(row, '9.9.9.9')).toEqual({ ip: '9.9.9.9', status: 'not-found', gateway: { cache: 'hit', ageMs: 1000, sightings: null } });
    expect(row.gateway).toEqual({ cache: 'hit', age: 1, fetched_at: '1970-01-01T00:00:00.000Z' });
  });
});

describe('bulk rows as JSON text', () => {
  it('are exactly JSON.stringify of bulkRowOf, whatever the reputation, the spelling or the provenance', () => {
    fc.assert(
      fc.property(reputation, fc.constantFrom('185.220.101.1', ' 185.220.101.1', '"odd\\"'), fc.constantFrom('hit', 'miss', 'coalesced' as const), fc.nat(), (rep, spelled, cache, age) => {
        const provenance = provenanceOf(cache, 0, age * 1000);
        for (const answer of [{ status: 'found' as const, data: rep }, { status: 'not-found' as const }]) {
          // Twice: the second is built from the remembered data part.
          for (let i = 0; i < 2; i++) expect(bulkRowJson(spelled, answer, provenanceJson(cache, 0, age * 1000))).toBe(JSON.stringify(bulkRowOf(spelled, answer, provenance)));
        }
      }),
    );
  });
});

describe('the stored form of an answer', () => {
  it('decodes to the answer it encodes (its IP from the key), found or not', () => {
    fc.assert(
      fc.property(reputation, fc.nat({ max: 2 ** 42 }), fc.boolean(), fc.boolean(), (rep, fetchedAt, found, oddTime) => {
        const data = oddTime && rep.lastAttack ? { ...rep, lastAttack: rep.lastAttack.replace('Z', '+00:00') } : rep;
        const answer = found ? { status: 'found' as const, data, fetchedAt } : { status: 'not-found' as const, data: null, fetchedAt };
        expect(decodeAnswer(rep.ip, encodeAnswer(answer))).toEqual(answer);
      }),
    );
  });
  it('is short: no field names, no IP, defaults left out', () => {
    const rep = { ip: '185.220.101.1', score: 93, threatLevel: 'CRITICAL' as const, reputation: 'malicious', totalHits: 3750, lastAttack: '2025-06-06T00:41:42.465Z', whitelisted: false, whitelist: null, description: null };
    expect(encodeAnswer({ status: 'found', data: rep, fetchedAt: 1795903472991 })).toBe('[1795903472991,93,"CRITICAL","malicious",3750,1749170502465]');
    expect(encodeAnswer({ status: 'not-found', data: null, fetchedAt: 1795903472991 })).toBe('1795903472991');
  });
  it('reads the older object form, and takes a value that is none of these for a miss', () => {
    const old = { status: 'not-found', data: null, fetchedAt: 5 };
    expect(decodeAnswer('1.1.1.1', JSON.stringify(old))).toEqual(old);
    for (const junk of ['', '{', '"x"', '[]', '{"a":1}']) expect(decodeAnswer('1.1.1.1', junk)).toBeNull();
  });
  it('is decoded once per (IP, value) by a replica, into one frozen object', () => {
    const decoder = new AnswerDecoder(2);
    const raw = '[1795903472991,93]';
    const first = decoder.decode('1.1.1.1', raw)!;
    expect(decoder.decode('1.1.1.1', raw)).toBe(first);
    expect(Object.isFrozen(first.data)).toBe(true);
    expect(decoder.decode('2.2.2.2', raw)).not.toBe(first);
    expect(decoder.decode('2.2.2.2', raw)!.data!.ip).toBe('2.2.2.2');
    for (const ip of ['3.3.3.3', '4.4.4.4', '5.5.5.5', '6.6.6.6']) decoder.decode(ip, raw);
    // Forgotten after two generations, decoded again (equal, not the same object).
    expect(decoder.decode('1.1.1.1', raw)).not.toBe(first);
    expect(decoder.decode('1.1.1.1', raw)).toEqual(first);
  });
});

describe('tokens', () => {
  it('are random, and stored as their SHA-256', () => {
    const a = newToken();
    expect(a).toMatch(/^iplg_[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(a);
    expect(hashToken(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(a)).not.toContain(a);
  });
  it('come in either API header', () => {
    expect(credentialOf({ authorization: 'Bearer abc' })).toBe('abc');
    expect(credentialOf({ authorization: 'bearer  abc ' })).toBe('abc');
    expect(credentialOf({ 'x-api-key': ' abc ' })).toBe('abc');
    expect(credentialOf({ authorization: 'Basic abc' })).toBeNull();
    expect(credentialOf({})).toBeNull();
  });
});
