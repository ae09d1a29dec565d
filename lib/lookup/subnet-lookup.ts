/**
 * One `/checkSubnet` call for the lookup service: refused by the same rules as any manual
 * lookup (no key, key rejected, quota exhausted), its worst case (one unit per address in the
 * block) committed in the quota guard while it runs, its real cost (the IPs found) charged
 * when it returns. Every scanned address goes into the cache: the found ones with their rows,
 * the others as "not found" (the answer lists only found IPs, so those are known absent), so
 * page marks and later lookups of any of them cost nothing.
 */
import { ApiError } from '../api/errors';
import type { SubnetLookup } from '../api/types';
import { blockSize, scannedAddresses, type CidrBlock } from '../ip/cidr-block';
import { toLookupForm } from '../ip/lookupable';
import type { CallContext } from './call-context';
import { costOfError } from './quota-costs';
import { asApiError, NO_KEY_ERROR } from './results';
import type { LookupResult } from './types';

/** The cache keys IPs as lookups do: canonical, `::ffff:a.b.c.d` as `a.b.c.d`. */
const ipKeyOf = (ip: string) => toLookupForm(ip) ?? ip;

export interface SubnetAnswer {
  cidr: string;
  summary: SubnetLookup['summary'];
  /** The found IPs, as lookup results (in the server's order). */
  found: Extract<LookupResult, { status: 'found' }>[];
  /** Units charged: one per IP found. */
  cost: number;
  /** Every address whose cached answer this call set (found and known absent). */
  updated: string[];
}

export async function lookupSubnet(context: CallContext, block: CidrBlock): Promise<SubnetAnswer> {
  const client = context.client();
  if (!client) throw new ApiError(NO_KEY_ERROR);
  const keyError = context.keyError();
  if (keyError) throw new ApiError(keyError);
  const { guard, cache } = context;
  if (guard.blocked) {
    throw new ApiError({ kind: 'quota-exhausted', message: guard.snapshot().detail ?? 'The usage limit is reached.' });
  }
  const release = guard.commit(blockSize(block));
  const generation = cache.generation;
  const identity = guard.identity;
  try {
    const answer = await client.checkSubnet(block.cidr);
    guard.charge(answer.items.length, identity);
    const found: SubnetAnswer['found'] = [];
    const listed = new Set<string>();
    for (const data of answer.items) {
      const ip = ipKeyOf(data.ip);
      listed.add(ip);
      const result = cache.answer({ ip, status: 'found', data: { ...data, ip }, detailed: false }, generation);
      if (result.status === 'found') found.push(result);
    }
    for (const ip of scannedAddresses(block)) {
      if (!listed.has(ip)) cache.record({ ip, status: 'not-found', detailed: false }, generation);
    }
    const updated = [...new Set([...listed, ...scannedAddresses(block)])];
    return { cidr: block.cidr, summary: answer.summary, found, cost: answer.items.length, updated };
  } catch (error) {
    const apiError = asApiError(error);
    guard.charge(costOfError('subnet', apiError), identity);
    if (context.client() === client) context.noteFailure(apiError);
    throw apiError;
  } finally {
    release();
  }
}
