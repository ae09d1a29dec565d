/**
 * Bulk lookups of any size: de-duplicate, answer malformed IPs locally (a 400 would cost
 * quota), send chunks of at most 100 (the documented limit), and merge the answers back into
 * one item per requested IP, in request order, whatever order or spelling the server used.
 */
import { ApiError } from './errors';
import type { Transport } from './http';
import { normalizeBulkResult } from './normalize';
import { parseAnswer } from './parse';
import { bulkLookupSchema, type WireBulkResult } from './schemas';
import type { BulkItem, BulkLookup } from './types';
import { ipKey, isValidIp } from '../ip/validate-ip';

export const BULK_CHUNK_SIZE = 100;
export const INVALID_IP_MESSAGE = 'Not a valid IP address';
export const MISSING_RESULT_MESSAGE = 'No result returned';

interface PlannedIp {
  /** As the caller spelled it: items echo it so callers can match them. */
  ip: string;
  /** Canonical key; null for a malformed value. */
  key: string | null;
}

export interface BulkPlan {
  entries: PlannedIp[];
  /** Trimmed valid IPs, at most BULK_CHUNK_SIZE per chunk. */
  chunks: string[][];
}

export function planBulk(ips: readonly string[], chunkSize = BULK_CHUNK_SIZE): BulkPlan {
  const seen = new Set<string>();
  const entries: PlannedIp[] = [];
  const valid: string[] = [];
  for (const ip of ips) {
    const trimmed = ip.trim();
    const key = isValidIp(trimmed) ? ipKey(trimmed) : null;
    const identity = key ?? `invalid:${trimmed}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    entries.push({ ip, key });
    if (key !== null) valid.push(trimmed);
  }
  const chunks: string[][] = [];
  for (let i = 0; i < valid.length; i += chunkSize) chunks.push(valid.slice(i, i + chunkSize));
  return { entries, chunks };
}

/** First answer per canonical IP; answers for IPs we did not ask about are ignored later. */
export function indexResults(rows: readonly WireBulkResult[], into = new Map<string, WireBulkResult>()) {
  for (const row of rows) {
    const ip = row.ip.trim();
    if (!isValidIp(ip)) continue;
    const key = ipKey(ip);
    if (!into.has(key)) into.set(key, row);
  }
  return into;
}

export function mergeBulk(
  entries: readonly PlannedIp[],
  rows: ReadonlyMap<string, WireBulkResult>,
  unanswered: { keys: ReadonlySet<string>; message: string } | null = null,
): BulkItem[] {
  return entries.map(({ ip, key }): BulkItem => {
    if (key === null) return { ip, status: 'error', message: INVALID_IP_MESSAGE };
    const row = rows.get(key);
    if (row) return normalizeBulkResult(row, ip);
    if (unanswered?.keys.has(key)) return { ip, status: 'error', message: unanswered.message };
    return { ip, status: 'error', message: MISSING_RESULT_MESSAGE };
  });
}

export async function lookupBulk(
  transport: Transport,
  ips: readonly string[],
  signal?: AbortSignal,
): Promise<BulkLookup> {
  const plan = planBulk(ips);
  const rows = new Map<string, WireBulkResult>();
  let requests = 0;
  for (const [index, chunk] of plan.chunks.entries()) {
    requests++;
    try {
      const answer = await transport.send({ method: 'POST', path: '/checkIP/bulk', body: { ips: chunk }, ...(signal ? { signal } : {}) });
      indexResults(parseAnswer(bulkLookupSchema, answer.json, 'bulk lookup', answer.status).results, rows);
    } catch (error) {
      // Nothing looked up yet: the caller gets the error itself (and may pause on a 429).
      if (!(error instanceof ApiError) || index === 0) throw error;
      const keys = new Set(plan.chunks.slice(index).flat().map(ipKey));
      return {
        items: mergeBulk(plan.entries, rows, { keys, message: error.message }),
        requests,
        failure: error.toJSON(),
      };
    }
  }
  return { items: mergeBulk(plan.entries, rows), requests };
}
