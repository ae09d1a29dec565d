/** Distinct public IPv4 addresses for tests: 23.0.0.0/8 is ordinary routed space. */
export function publicIp(i: number): string {
  return `23.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

export function publicIps(count: number, from = 0): string[] {
  return Array.from({ length: count }, (_, i) => publicIp(from + i));
}
