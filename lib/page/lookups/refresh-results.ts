/**
 * New answers were cached for some IPs outside this page's own lookups (a subnet check in the
 * popup): the ones this page shows are asked again. The background answers them from its
 * cache, so this costs no API call, and their marks and the card update as any answer does.
 */
import type { LookupResult } from '../../lookup/types';
import type { LookupSender } from './lookup-queue';

export interface RefreshTarget {
  /** How often the IP occurs on the page (0: not shown here). */
  countOf(ip: string): number;
  putResult(result: LookupResult): void;
}

export async function refreshShownResults(ips: readonly string[], page: RefreshTarget, send: LookupSender): Promise<number> {
  const shown = [...new Set(ips)].filter((ip) => page.countOf(ip) > 0);
  if (!shown.length) return 0;
  const reply = await send(shown, 'visible');
  // A failed ask leaves the marks as they were: nothing new is known.
  if (!reply.ok) return 0;
  // Only answers replace what the page holds: a rule's "not sent" (page cap, automatic lookups
  // off) says nothing new about an IP whose answer was just cached.
  const answers = reply.value.filter((r) => r.status === 'found' || r.status === 'not-found');
  for (const result of answers) page.putResult(result);
  return answers.length;
}
