/**
 * Bulk lookups of any size: de-duplicate, answer malformed IPs locally (a 400 would cost
 * quota), send chunks of at most 100 (the documented limit), and merge the answers back into
 * one item per requested IP, in request order, whatever order or spelling the server used.
 */
import { ApiError, type ApiErrorData } from './errors';
import type { Transport } from './http';
import { normalizeBulkRow } from './normalize';
import { parseAnswer } from './parse';
import { bulkLookupSchema } from './schemas';
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

function rowIp(row: unknown): string | null {
  const ip = row !== null && typeof row === 'object' ? (row as { ip?: unknown }).ip : undefined;
  return typeof ip === 'string' && isValidIp(ip.trim()) ? ipKey(ip.trim()) : null;
}

/**
 * First row per canonical IP; rows for IPs we did not ask about are ignored later. A row whose
 * `ip` is missing or garbled is matched by its position when the server answered exactly one
 * row per IP sent (`sent`, the chunk in request order) and that IP has no row of its own.
 */
export function indexResults(rows: readonly unknown[], sent: readonly string[] = [], into = new Map<string, unknown>()) {
  for (const row of rows) {
    const key = rowIp(row);
    if (key !== null && !into.has(key)) into.set(key, row);
  }
  if (rows.length === sent.length) {
    const named = new Set(rows.map(rowIp));
    rows.forEach((row, index) => {
      if (rowIp(row) !== null) return;
      const key = ipKey(sent[index]!);
      if (!named.has(key) && !into.has(key)) into.set(key, row);
    });
  }
  return into;
}

export function mergeBulk(
  entries: readonly PlannedIp[],
  rows: ReadonlyMap<string, unknown>,
  unanswered: { keys: ReadonlySet<string>; error: ApiErrorData } | null = null,
): BulkItem[] {
  return entries.map(({ ip, key }): BulkItem => {
    if (key === null) return { ip, status: 'error', kind: 'bad-request', message: INVALID_IP_MESSAGE };
    if (rows.has(key)) return normalizeBulkRow(rows.get(key), ip);
    if (unanswered?.keys.has(key)) return { ip, status: 'error', kind: unanswered.error.kind, message: unanswered.error.message };
    return { ip, status: 'error', kind: 'bad-response', message: MISSING_RESULT_MESSAGE };
  });
}

/**
 * `asked` (a team gateway only; null for the API): the IPs the analyst asked for, sent per
 * chunk as the body's `asked` (those of the chunk, in its spelling) for the team's sightings.
 */
export async function lookupBulk(
  transport: Transport,
  ips: readonly string[],
  signal?: AbortSignal,
  asked: ReadonlySet<string> | null = null,
): Promise<BulkLookup> {
  const plan = planBulk(ips);
  const rows = new Map<string, unknown>();
  let requests = 0;
  for (const [index, chunk] of plan.chunks.entries()) {
    requests++;
    try {
      const body = asked ? { ips: chunk, asked: chunk.filter((ip) => asked.has(ip) || asked.has(ip.trim())) } : { ips: chunk };
      const answer = await transport.send({ method: 'POST', path: '/checkIP/bulk', body, paid: true, ...(signal ? { signal } : {}) });
      indexResults(parseAnswer(bulkLookupSchema, answer.json, 'bulk lookup', answer.status).results, chunk, rows);
    } catch (error) {
      // Nothing looked up yet: the caller gets the error itself (and may pause on a 429).
      if (!(error instanceof ApiError) || index === 0) throw error;
      const keys = new Set(plan.chunks.slice(index).flat().map(ipKey));
      return {
        items: mergeBulk(plan.entries, rows, { keys, error: error.toJSON() }),
        requests,
        failure: error.toJSON(),
      };
    }
  }
  return { items: mergeBulk(plan.entries, rows), requests };
}
