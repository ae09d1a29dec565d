/** Why an address is or is not sent to the API. Only `public` addresses are looked up by default. */
export type IpClass =
  | 'public'
  | 'private' // RFC 1918, IPv6 unique local fc00::/7
  | 'loopback'
  | 'link-local'
  | 'shared' // 100.64.0.0/10, carrier-grade NAT
  | 'multicast'
  | 'broadcast'
  | 'documentation' // TEST-NETs, 2001:db8::/32, 3fff::/20
  | 'benchmarking' // 198.18.0.0/15, 2001:2::/48
  | 'unspecified'
  | 'reserved'; // everything else IANA marks as not globally reachable

export interface IpMatch {
  /** Canonical: IPv4 dotted decimal; IPv6 RFC 5952 lower case, IPv4-mapped as ::ffff:a.b.c.d */
  ip: string;
  version: 4 | 6;
  /** Offsets in the input of the characters to mark (end exclusive). */
  start: number;
  end: number;
}
