/**
 * RFC 5952 canonical text: lower case, no leading zeros, the longest run of two or more zero
 * groups (the first on a tie) as `::`. IPv4-mapped addresses keep their IPv4 part dotted
 * (section 5), so `::ffff:1.2.3.4` stays readable instead of becoming `::ffff:102:304`.
 */
import { formatIpv4 } from './parse-ipv4';

export function isIpv4Mapped(groups: readonly number[]): boolean {
  return groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff;
}

export function embeddedIpv4(groups: readonly number[], at = 6): number {
  return groups[at]! * 65536 + groups[at + 1]!;
}

export function formatIpv6(groups: readonly number[]): string {
  if (isIpv4Mapped(groups)) return `::ffff:${formatIpv4(embeddedIpv4(groups))}`;
  let bestStart = -1;
  let bestLength = 1; // a single zero group is never compressed
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  if (bestStart < 0) return groups.map((g) => g.toString(16)).join(':');
  const head = groups.slice(0, bestStart).map((g) => g.toString(16)).join(':');
  const tail = groups.slice(bestStart + bestLength).map((g) => g.toString(16)).join(':');
  return `${head}::${tail}`;
}
