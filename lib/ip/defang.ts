/**
 * An address written so that it cannot become a link or be clicked by accident in a ticket,
 * chat or e-mail: every dot as `[.]` and every colon as `[:]` (CyberChef's convention).
 * findIps and normalizeIp read both forms back, so a defanged copy pasted into the popup or
 * found on a page is the same address.
 */
import { parseIpv4 } from './parse-ipv4';

export function defangIp(ip: string): string {
  return hexTail(ip).replaceAll('.', '[.]').replaceAll(':', '[:]');
}

/**
 * `::ffff:1.2.3.4` as `::ffff:102:304`: the same address, and the form whose defanged
 * spelling readers understand (nobody reads `[.]` inside an IPv6 address).
 */
function hexTail(ip: string): string {
  const colon = ip.lastIndexOf(':');
  if (colon < 0 || !ip.includes('.')) return ip;
  const v4 = parseIpv4(ip.slice(colon + 1));
  if (v4 < 0) return ip;
  return `${ip.slice(0, colon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
}
