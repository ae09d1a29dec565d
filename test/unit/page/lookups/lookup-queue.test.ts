import { describe, expect, it } from 'vitest';
import type { LookupResult } from '@/lib/lookup/types';
import { lookupQueue, type LookupSender } from '@/lib/page/lookups/lookup-queue';

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const notFound = (ip: string): LookupResult => ({ ip, status: 'not-found', fetchedAt: 1 });

describe('lookupQueue', () => {
  it('asks each IP once, coalescing a burst into one batch', async () => {
    const calls: [string[], string][] = [];
    const send: LookupSender = async (ips, priority) => {
      calls.push([ips, priority]);
      return { ok: true, value: ips.map(notFound) };
    };
    const seen: string[] = [];
    const q = lookupQueue({ send, onResults: (r) => seen.push(...r.map((x) => x.ip)) });
    q.request(['1.1.1.1', '2.2.2.2'], 'visible');
    q.request(['2.2.2.2', '3.3.3.3'], 'visible');
    await q.idle();
    q.request(['1.1.1.1'], 'background');
    await q.idle();
    expect(calls).toEqual([[['1.1.1.1', '2.2.2.2', '3.3.3.3'], 'visible']]);
    expect(seen).toEqual(['1.1.1.1', '2.2.2.2', '3.3.3.3']);
    expect(q.resultOf('3.3.3.3')?.status).toBe('not-found');
  });

  it('sends visible batches without waiting behind a slow background batch', async () => {
    const gates: { ips: string[]; priority: string; gate: ReturnType<typeof deferred<void>> }[] = [];
    const send: LookupSender = async (ips, priority) => {
      const gate = deferred<void>();
      gates.push({ ips, priority, gate });
      await gate.promise;
      return { ok: true, value: ips.map(notFound) };
    };
    const q = lookupQueue({ send, onResults: () => {}, batchSize: 2 });
    q.request(['10.0.0.1', '10.0.0.2', '10.0.0.3'], 'background');
    await Promise.resolve();
    await Promise.resolve();
    expect(gates.map((g) => g.priority)).toEqual(['background']);
    q.request(['9.9.9.9'], 'visible');
    await Promise.resolve();
    await Promise.resolve();
    expect(gates.map((g) => g.priority)).toEqual(['background', 'visible']);
    // The second background batch waits for the first.
    gates[1]!.gate.resolve();
    gates[0]!.gate.resolve();
    await new Promise((r) => setTimeout(r, 0));
    expect(gates.map((g) => g.ips)).toEqual([['10.0.0.1', '10.0.0.2'], ['9.9.9.9'], ['10.0.0.3']]);
    gates[2]!.gate.resolve();
    await q.idle();
    expect(q.pending).toBe(0);
  });

  it('asks again as visible, once, an IP asked as background that comes on screen before its answer', async () => {
    // The background holds background IPs longer (lib/lookup/batcher.ts): one on screen must
    // say so, or it waits as long as one far away.
    const asks: { ips: string[]; priority: string; now: boolean }[] = [];
    const gates: ReturnType<typeof deferred<void>>[] = [];
    const send: LookupSender = async (ips, priority, answerNow) => {
      asks.push({ ips, priority, now: answerNow === true });
      if (answerNow) return { ok: true, value: [] };
      const gate = deferred<void>();
      gates.push(gate);
      await gate.promise;
      return { ok: true, value: ips.map(notFound) };
    };
    const q = lookupQueue({ send, onResults: () => {} });
    q.request(['23.0.0.1', '23.0.0.2'], 'background');
    await new Promise((r) => setTimeout(r, 0));
    expect(q.wouldAsk('23.0.0.1', 'background')).toBe(false);
    expect(q.wouldAsk('23.0.0.1', 'visible')).toBe(true);
    q.request(['23.0.0.1'], 'visible');
    q.request(['23.0.0.1'], 'visible');
    await new Promise((r) => setTimeout(r, 0));
    expect(asks.map((a) => [a.ips, a.priority, a.now])).toEqual([
      [['23.0.0.1', '23.0.0.2'], 'background', true],
      [['23.0.0.1', '23.0.0.2'], 'background', false],
      [['23.0.0.1'], 'visible', true],
      [['23.0.0.1'], 'visible', false],
    ]);
    gates.forEach((g) => g.resolve());
    await q.idle();
    // Answered: never asked again, whatever its priority.
    expect(q.wouldAsk('23.0.0.1', 'visible')).toBe(false);
    expect(q.wouldAsk('23.0.0.2', 'visible')).toBe(false);
  });

  it('leaves out of its next background batch an IP asked as visible while it waited', async () => {
    const asks: [string[], string][] = [];
    const gate = deferred<void>();
    const send: LookupSender = async (ips, priority, answerNow) => {
      if (answerNow) {
        asks.push([ips, priority]);
        // The first background batch holds its turn until the gate opens.
        if (priority === 'background' && asks.length === 1) await gate.promise;
        return { ok: true, value: ips.map(notFound) };
      }
      return { ok: true, value: [] };
    };
    const q = lookupQueue({ send, onResults: () => {}, batchSize: 2 });
    q.request(['23.0.0.1', '23.0.0.2', '23.0.0.3', '23.0.0.4'], 'background');
    await new Promise((r) => setTimeout(r, 0));
    q.request(['23.0.0.3'], 'visible');
    await new Promise((r) => setTimeout(r, 0));
    gate.resolve();
    await q.idle();
    expect(asks).toEqual([
      [['23.0.0.1', '23.0.0.2'], 'background'],
      [['23.0.0.3'], 'visible'],
      [['23.0.0.4'], 'background'],
    ]);
  });

  it('turns a failed message or a missing answer into error results, not endless pending', async () => {
    let fail = true;
    const send: LookupSender = async (ips) =>
      fail
        ? { ok: false, error: { kind: 'unreachable', message: 'The extension background did not answer.' } }
        : { ok: true, value: ips.slice(1).map(notFound) };
    const q = lookupQueue({ send, onResults: () => {} });
    q.request(['1.1.1.1'], 'visible');
    await q.idle();
    const failed = q.resultOf('1.1.1.1');
    expect(failed).toMatchObject({ status: 'error', error: { kind: 'network' } });
    fail = false;
    q.request(['2.2.2.2', '3.3.3.3'], 'visible');
    await q.idle();
    expect(q.resultOf('2.2.2.2')).toMatchObject({ status: 'error', error: { kind: 'bad-response' } });
    expect(q.resultOf('3.3.3.3')?.status).toBe('not-found');
  });

  it('keeps an API error kind from the reply', async () => {
    const q = lookupQueue({
      send: async () => ({ ok: false, error: { kind: 'missing-key', message: 'No key' } }),
      onResults: () => {},
    });
    q.request(['1.1.1.1'], 'visible');
    await q.idle();
    expect(q.resultOf('1.1.1.1')).toMatchObject({ status: 'error', error: { kind: 'missing-key', message: 'No key' } });
  });

  it('forget drops every answer, queued ask and answer still in flight; forgotten IPs are asked again', async () => {
    const gates: ReturnType<typeof deferred<void>>[] = [];
    const calls: string[][] = [];
    const send: LookupSender = async (ips) => {
      calls.push(ips);
      const gate = deferred<void>();
      gates.push(gate);
      await gate.promise;
      return { ok: true, value: ips.map(notFound) };
    };
    const seen: string[] = [];
    const q = lookupQueue({ send, onResults: (r) => seen.push(...r.map((x) => x.ip)) });
    q.put(notFound('1.1.1.1'));
    q.request(['2.2.2.2'], 'visible');
    await new Promise((r) => setTimeout(r, 0));
    expect(calls).toEqual([['2.2.2.2']]);

    expect([...q.forget()].sort()).toEqual(['1.1.1.1', '2.2.2.2']);
    expect(q.resultOf('1.1.1.1')).toBeUndefined();
    expect(q.wasAsked('2.2.2.2')).toBe(false);
    gates[0]!.resolve();
    await q.idle();
    // The answer asked before forget() is not kept.
    expect(seen).toEqual(['1.1.1.1']);
    expect(q.resultOf('2.2.2.2')).toBeUndefined();

    q.request(['2.2.2.2'], 'visible');
    await new Promise((r) => setTimeout(r, 0));
    gates[1]!.resolve();
    await q.idle();
    expect(calls).toEqual([['2.2.2.2'], ['2.2.2.2']]);
    expect(q.resultOf('2.2.2.2')?.status).toBe('not-found');
  });

  it('pending is true: refusals come back at once, only IPs queued for a call stay pending, and the next background batch is not held', async () => {
    // Modelled on the background's cs:lookup: with answerNow it answers what needs no call
    // (here the cap's refusals) and leaves out the IPs it queued; asked again, it waits for the call.
    const capped = new Set(['9.9.9.1', '9.9.9.2', '9.9.9.3']);
    const call = deferred<void>();
    const asks: { ips: string[]; answerNow: boolean }[] = [];
    const send: LookupSender = async (ips, _priority, answerNow) => {
      asks.push({ ips, answerNow: answerNow === true });
      const refused = ips.filter((ip) => capped.has(ip)).map((ip): LookupResult => ({ ip, status: 'skipped', reason: 'page-cap', limit: 1 }));
      if (answerNow) return { ok: true, value: refused };
      await call.promise;
      return { ok: true, value: [...refused, ...ips.filter((ip) => !capped.has(ip)).map(notFound)] };
    };
    const q = lookupQueue({ send, onResults: () => {}, batchSize: 2 });
    q.request(['1.1.1.1', '9.9.9.1', '9.9.9.2', '9.9.9.3'], 'background');
    await new Promise((r) => setTimeout(r, 0));
    await new Promise((r) => setTimeout(r, 0));
    // The API call for 1.1.1.1 has not answered, yet every capped IP has its answer and the
    // second background batch went out meanwhile.
    expect(q.resultOf('9.9.9.1')).toMatchObject({ reason: 'page-cap' });
    expect(q.resultOf('9.9.9.2')).toMatchObject({ reason: 'page-cap' });
    expect(q.resultOf('9.9.9.3')).toMatchObject({ reason: 'page-cap' });
    expect(q.resultOf('1.1.1.1')).toBeUndefined();
    expect(asks).toEqual([
      { ips: ['1.1.1.1', '9.9.9.1'], answerNow: true },
      { ips: ['9.9.9.2', '9.9.9.3'], answerNow: true },
      { ips: ['1.1.1.1'], answerNow: false },
    ]);
    expect(q.pending).toBe(1);
    call.resolve();
    await q.idle();
    expect(q.resultOf('1.1.1.1')?.status).toBe('not-found');
    expect(q.pending).toBe(0);
  });

  it('a batch sent before lookups recovered that comes back failed after it is asked again, not kept failed', async () => {
    // The recovery notice and a batch's answer travel apart: the page can hear "recovered"
    // while a batch sent during the outage is still out, then get that batch's failure.
    const failed = (ip: string): LookupResult => ({ ip, status: 'error', error: { kind: 'server', message: 'HTTP 503' } });
    const gates: ReturnType<typeof deferred<void>>[] = [];
    let serverBack = false;
    const calls: string[][] = [];
    const send: LookupSender = async (ips, _priority, answerNow) => {
      if (answerNow) return { ok: true, value: [] };
      calls.push(ips);
      const down = !serverBack;
      const gate = deferred<void>();
      gates.push(gate);
      await gate.promise;
      return { ok: true, value: ips.map(down ? failed : notFound) };
    };
    const q = lookupQueue({ send, onResults: () => {} });
    q.request(['1.1.1.1'], 'visible');
    q.request(['2.2.2.2'], 'background');
    await new Promise((r) => setTimeout(r, 0));
    expect(calls).toEqual([['1.1.1.1'], ['2.2.2.2']]);
    // Lookups recovered: nothing has an answer yet, so nothing is forgotten...
    serverBack = true;
    expect(q.forgetWhere((r) => r.status === 'error').size).toBe(0);
    // ...and the outage's failures arrive after it.
    for (const gate of gates.splice(0)) gate.resolve();
    await new Promise((r) => setTimeout(r, 0));
    for (const gate of gates.splice(0)) gate.resolve();
    await q.idle();
    expect(calls.slice(2)).toEqual([['1.1.1.1'], ['2.2.2.2']]);
    expect(q.resultOf('1.1.1.1')?.status).toBe('not-found');
    expect(q.resultOf('2.2.2.2')?.status).toBe('not-found');
  });

  it('a failure of a batch sent after the recovery is kept (it is the current state)', async () => {
    const failed = (ip: string): LookupResult => ({ ip, status: 'error', error: { kind: 'server', message: 'HTTP 503' } });
    let calls = 0;
    const send: LookupSender = async (ips, _priority, answerNow) => {
      if (answerNow) return { ok: true, value: [] };
      calls++;
      return { ok: true, value: ips.map(failed) };
    };
    const q = lookupQueue({ send, onResults: () => {} });
    q.forgetWhere((r) => r.status === 'error');
    q.request(['1.1.1.1'], 'visible');
    await q.idle();
    expect(calls).toBe(1);
    expect(q.resultOf('1.1.1.1')?.status).toBe('error');
  });
});
