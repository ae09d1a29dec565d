/**
 * Personal tokens: random, shown once, stored only as a SHA-256 hash (a 256-bit random token
 * needs no slow hash: nothing to guess). An analyst sends one where the extension would send
 * the API key, in either header the API accepts.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store, TokenRecord } from './store/types';

const PREFIX = 'iplg_';
export const TOKEN_NAME = /^[A-Za-z0-9._@-]{1,64}$/;
const DAY_MS = 24 * 60 * 60 * 1000;

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function newToken(): string {
  return PREFIX + randomBytes(32).toString('base64url');
}

/** The credential of a request, from `Authorization: Bearer …` or `X-API-Key`; null if none. */
export function credentialOf(headers: Record<string, string | string[] | undefined>): string | null {
  const auth = headers.authorization;
  const bearer = typeof auth === 'string' ? /^\s*bearer\s+(\S+)\s*$/i.exec(auth)?.[1] : undefined;
  if (bearer) return bearer;
  const key = headers['x-api-key'];
  return typeof key === 'string' && key.trim() ? key.trim() : null;
}

export type TokenCheck = { ok: true; token: TokenRecord } | { ok: false; reason: 'unknown' | 'expired' };

export async function checkToken(store: Store, token: string, now: number): Promise<TokenCheck> {
  const hash = hashToken(token);
  const record = await store.tokenByHash(hash);
  // The store looked it up by hash; compare again in constant time for good measure.
  if (!record || !timingSafeEqual(Buffer.from(record.hash, 'hex'), Buffer.from(hash, 'hex'))) return { ok: false, reason: 'unknown' };
  if (record.expiresAt !== null && record.expiresAt <= now) return { ok: false, reason: 'expired' };
  return { ok: true, token: record };
}

export interface AddTokenOptions {
  budget: number | null;
  expiresDays: number | null;
}

export async function addToken(store: Store, name: string, options: AddTokenOptions, now: number): Promise<string> {
  if (!TOKEN_NAME.test(name)) throw new Error(`Token name "${name}" is not allowed: use 1-64 letters, digits, dot, dash, underscore or @.`);
  const existing = await store.listTokens('0000-00-00');
  if (existing.some((t) => t.name === name)) throw new Error(`A token named "${name}" exists: revoke it first or choose another name.`);
  const token = newToken();
  await store.putToken({
    name,
    hash: hashToken(token),
    createdAt: now,
    expiresAt: options.expiresDays === null ? null : now + options.expiresDays * DAY_MS,
    budget: options.budget,
  });
  return token;
}
