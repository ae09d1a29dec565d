/**
 * First step of every lookup: bring each input to its canonical form, answer at once what
 * must not be sent (not an IP; private or reserved ranges unless the user allows them), and
 * group duplicates so each distinct IP is looked up once however often it was asked.
 */
import { classifyIp, toLookupForm } from '../ip';
import { skipped } from './results';
import type { LookupResult } from './types';

export interface PreparedIps {
  /** One slot per input; filled now for skipped inputs, later for the rest. */
  results: (LookupResult | undefined)[];
  /** Canonical IP -> the input positions that asked for it. */
  wanted: Map<string, number[]>;
}

export function prepareIps(inputs: readonly string[], sendPrivate: boolean): PreparedIps {
  const results: (LookupResult | undefined)[] = new Array(inputs.length);
  const wanted = new Map<string, number[]>();
  inputs.forEach((input, index) => {
    // toLookupForm: canonical, and ::ffff:a.b.c.d as a.b.c.d (the same host, keyed once).
    const ip = toLookupForm(input);
    if (ip === null) {
      results[index] = skipped(input, 'invalid');
      return;
    }
    const range = classifyIp(ip);
    if (range !== 'public' && !sendPrivate) {
      results[index] = skipped(ip, range);
      return;
    }
    const positions = wanted.get(ip);
    if (positions) positions.push(index);
    else wanted.set(ip, [index]);
  });
  return { results, wanted };
}
