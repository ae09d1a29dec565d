import { describe, expect, it } from 'vitest';
import type { IpClass } from '@/lib/ip/types';
import type { LookupResult } from '@/lib/lookup/types';
import { pageAnswers, type AskPolicy } from '@/lib/page/lookups/page-answers';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';

const classOf = (ip: string): IpClass => (ip.startsWith('10.') ? 'private' : 'public');

function answers(policy: AskPolicy = { thresholds: DEFAULT_THRESHOLDS, sendPrivate: false }) {
  const sent: string[][] = [];
  let classified = 0;
  const page = pageAnswers(
    (ip) => {
      classified++;
      return classOf(ip);
    },
    () => policy,
    {
      send: async (ips) => {
        sent.push(ips);
        return { ok: true, value: ips.map((ip): LookupResult => ({ ip, status: 'not-found', fetchedAt: 1 })) };
      },
      onResults: () => {},
    },
  );
  return { page, sent, policy, classified: () => classified };
}

describe('pageAnswers', () => {
  it('asks public addresses only, and private ones once the analyst allows it', async () => {
    const { page, sent, policy } = answers();
    page.ask(['1.1.1.1', '10.0.0.1'], 'visible');
    await page.queue.idle();
    expect(sent).toEqual([['1.1.1.1']]);
    expect(page.severityOf('10.0.0.1')).toBe('skipped');
    expect(page.resultOf('10.0.0.1')).toEqual({ ip: '10.0.0.1', status: 'skipped', reason: 'private' });
    policy.sendPrivate = true;
    expect(page.severityOf('10.0.0.1')).toBe('pending');
    expect(page.resultOf('10.0.0.1')).toBeUndefined();
    page.ask(['10.0.0.1'], 'visible');
    await page.queue.idle();
    expect(sent).toEqual([['1.1.1.1'], ['10.0.0.1']]);
    expect(page.resultOf('10.0.0.1')?.status).toBe('not-found');
  });

  it('shows pending for an unanswered public address, and the answer once it comes', async () => {
    const { page } = answers();
    expect(page.severityOf('1.1.1.1')).toBe('pending');
    expect(page.answeredSeverityOf('10.0.0.1')).toBe('pending');
    page.ask(['1.1.1.1'], 'visible');
    await page.queue.idle();
    expect(page.severityOf('1.1.1.1')).toBe(page.answeredSeverityOf('1.1.1.1'));
    expect(page.severityOf('1.1.1.1')).not.toBe('pending');
  });

  it('classifies each address once, and forgets the classes of addresses that left the page', () => {
    const { page, classified } = answers();
    for (let i = 0; i < 3; i++) page.shouldAsk('10.0.0.1');
    expect(classified()).toBe(1);
    page.compact(() => false);
    expect(page.remembered).toBe(0);
    page.shouldAsk('10.0.0.1');
    expect(classified()).toBe(2);
  });

  it('keeps what it knows of addresses off the page only up to a bound above those on it', () => {
    const { page } = answers();
    for (let i = 0; i < 5_100; i++) page.shouldAsk(`10.0.${i >> 8}.${i & 255}`);
    page.prune((ip) => ip === '10.0.0.0', 1);
    expect(page.remembered).toBe(1);
    for (let i = 0; i < 10; i++) page.shouldAsk(`10.1.0.${i}`);
    page.prune(() => false, 0);
    expect(page.remembered).toBe(11);
  });
});
