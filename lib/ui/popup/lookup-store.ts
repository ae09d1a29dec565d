/**
 * The popup's "Look up" box: parses what was typed or pasted, sends nothing for invalid input,
 * runs a detailed lookup for one IP and a bulk lookup for text, and keeps the latest answer
 * (an older, slower answer never overwrites a newer one).
 */
import { signal } from '@preact/signals';
import type { IpClass } from '../../ip/types';
import type { LookupResult } from '../../lookup/types';
import type { ReplyError } from '../../protocol';
import type { IpRow } from '../shared/ip-rows';
import { parseLookupInput, type FoundIp } from './parse-lookup-input';
import type { UiServices } from '../shared/services';

export interface TextSummary {
  /** Occurrences in the text, repeats included. */
  occurrences: number;
  unique: number;
  lookedUp: number;
  skipped: FoundIp[];
  truncated: number;
}

export type LookupState =
  | { phase: 'idle' }
  | { phase: 'invalid'; message: string }
  | { phase: 'loading'; what: string }
  | { phase: 'single'; result: LookupResult }
  | { phase: 'single-skipped'; ip: string; ipClass: Exclude<IpClass, 'public'> }
  | { phase: 'list'; rows: IpRow[]; summary: TextSummary }
  | { phase: 'error'; error: ReplyError; retry: string };

/**
 * An answer that may already have been paid: lost after it was sent (a timeout, a reset), or
 * asked by a worker that stopped before keeping it. Asking again is the analyst's call.
 */
export function mayBePaid(result: LookupResult): boolean {
  if (result.status === 'skipped') return result.reason === 'interrupted';
  return result.status === 'error' && result.error.lostAfterSend === true;
}

export function createLookupStore(services: Pick<UiServices, 'send'>) {
  const state = signal<LookupState>({ phase: 'idle' });
  let latest = 0;

  async function submit(input: string, options: { sendPrivate: boolean }): Promise<void> {
    const request = ++latest;
    const parsed = parseLookupInput(input, options);
    if (parsed.kind === 'invalid') {
      state.value = { phase: 'invalid', message: parsed.message };
      return;
    }
    if (parsed.kind === 'single') {
      if (!parsed.send) {
        state.value = { phase: 'single-skipped', ip: parsed.ip, ipClass: parsed.ipClass as Exclude<IpClass, 'public'> };
        return;
      }
      state.value = { phase: 'loading', what: parsed.ip };
      const reply = await services.send('ui:lookup', { ips: [parsed.ip], detailed: true });
      if (request !== latest) return;
      const result = reply.ok ? (reply.value.find((r) => r.ip === parsed.ip) ?? reply.value[0]) : undefined;
      if (!reply.ok) state.value = { phase: 'error', error: reply.error, retry: input };
      else if (!result) state.value = { phase: 'error', error: { kind: 'internal', message: 'The background answered no result.' }, retry: input };
      else state.value = { phase: 'single', result };
      return;
    }

    const summary: TextSummary = {
      occurrences: parsed.occurrences,
      unique: parsed.ips.length,
      lookedUp: parsed.toLookup.length,
      skipped: parsed.skipped,
      truncated: parsed.truncated,
    };
    const counts = new Map(parsed.ips.map((f) => [f.ip, f.count]));
    const skippedRows: IpRow[] = parsed.skipped.map((f) => ({
      ip: f.ip,
      count: f.count,
      result: { ip: f.ip, status: 'skipped', reason: f.ipClass as Exclude<IpClass, 'public'> },
    }));
    if (parsed.toLookup.length === 0) {
      state.value = { phase: 'list', rows: skippedRows, summary };
      return;
    }
    state.value = { phase: 'loading', what: `${parsed.toLookup.length} IP${parsed.toLookup.length === 1 ? '' : 's'}` };
    const reply = await services.send('ui:lookup', { ips: parsed.toLookup });
    if (request !== latest) return;
    if (!reply.ok) {
      state.value = { phase: 'error', error: reply.error, retry: input };
      return;
    }
    const byIp = new Map(reply.value.map((r) => [r.ip, r]));
    const rows: IpRow[] = parsed.toLookup.map((ip) => ({
      ip,
      count: counts.get(ip) ?? 1,
      // Every IP sent gets an answer; one missing is shown as a failure, not as "pending".
      result: byIp.get(ip) ?? {
        ip,
        status: 'error',
        error: { kind: 'bad-response', message: 'The background returned no result for this IP.' },
      },
    }));
    state.value = { phase: 'list', rows: [...rows, ...skippedRows], summary };
  }

  /**
   * "Try again" for answers that may already have been paid (the button states the cost): asks
   * these IPs once more, past the hold on lost answers, and puts the new answers in place.
   */
  async function tryAgain(ips: readonly string[]): Promise<void> {
    const before = state.value;
    if (!ips.length || (before.phase !== 'list' && before.phase !== 'single')) return;
    const request = ++latest;
    const detailed = before.phase === 'single';
    state.value = { phase: 'loading', what: `${ips.length} IP${ips.length === 1 ? '' : 's'} again` };
    const reply = await services.send('ui:lookup', { ips: [...ips], retryLost: true, ...(detailed ? { detailed: true } : {}) });
    if (request !== latest) return;
    if (!reply.ok) {
      state.value = { phase: 'error', error: reply.error, retry: ips.join('\n') };
      return;
    }
    const byIp = new Map(reply.value.map((r) => [r.ip, r]));
    if (before.phase === 'single') state.value = { phase: 'single', result: byIp.get(before.result.ip) ?? before.result };
    else state.value = { ...before, rows: before.rows.map((row) => ({ ...row, result: byIp.get(row.ip) ?? row.result })) };
  }

  function clear(): void {
    latest++;
    state.value = { phase: 'idle' };
  }

  return { state, submit, tryAgain, clear };
}
export type LookupStore = ReturnType<typeof createLookupStore>;
