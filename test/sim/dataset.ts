/**
 * The simulator's threat database: named fixtures that tests assert on, and for every other
 * valid IP a deterministic record (or "not found") derived from a hash of (seed, ip), so a
 * benchmark can look up 10,000 random IPs and get the same answers on every run.
 */
import { canonicalIp } from './ip';

export type SimThreatLevel = 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL';

export interface SimIpInfo {
  asn: string;
  as_name: string;
  as_domain: string;
  country_code: string;
  country: string;
  continent_code: string;
  continent: string;
  /** Older documentation's ipInfo lacks isp: some records do too. */
  isp?: string;
}

export interface ThreatRecord {
  ip: string;
  score: number;
  threatLevel: SimThreatLevel;
  /** Absent: omitted from the wire (whitelisted answers may lack ip_rep). */
  ipRep?: string;
  totalHits: number;
  /** Wire text: ISO `Z`, `+0000` with microseconds, `""` (never) or null. */
  lastAttack: string | null;
  /** Single-lookup `message`; the real service varies it. */
  message: string;
  description: string;
  whitelist: Record<string, string> | null;
  whitelistDescription: string | null;
  whitelistNote: string | null;
  whitelistValue: string | null;
  ipInfo: SimIpInfo;
}

export const DEFAULT_SEED = 'iplens';

const NETWORKS: SimIpInfo[] = [
  { asn: 'AS13335', as_name: 'Cloudflare, Inc.', as_domain: 'cloudflare.com', country_code: 'US', country: 'United States', continent_code: 'NA', continent: 'North America', isp: 'Cloudflare' },
  { asn: 'AS15169', as_name: 'Google LLC', as_domain: 'google.com', country_code: 'US', country: 'United States', continent_code: 'NA', continent: 'North America', isp: 'Google' },
  { asn: 'AS16276', as_name: 'OVH SAS', as_domain: 'ovhcloud.com', country_code: 'FR', country: 'France', continent_code: 'EU', continent: 'Europe', isp: 'OVH' },
  { asn: 'AS14061', as_name: 'DigitalOcean, LLC', as_domain: 'digitalocean.com', country_code: 'NL', country: 'Netherlands', continent_code: 'EU', continent: 'Europe', isp: 'DigitalOcean' },
  { asn: 'AS24940', as_name: 'Hetzner Online GmbH', as_domain: 'hetzner.com', country_code: 'DE', country: 'Germany', continent_code: 'EU', continent: 'Europe', isp: 'Hetzner' },
  { asn: 'AS4134', as_name: 'Chinanet', as_domain: 'chinatelecom.com.cn', country_code: 'CN', country: 'China', continent_code: 'AS', continent: 'Asia', isp: 'China Telecom' },
  { asn: 'AS9009', as_name: 'M247 Europe SRL', as_domain: 'm247.com', country_code: 'RO', country: 'Romania', continent_code: 'EU', continent: 'Europe', isp: 'M247' },
  { asn: 'AS45090', as_name: 'Shenzhen Tencent Computer Systems Company Limited', as_domain: 'tencent.com', country_code: 'SG', country: 'Singapore', continent_code: 'AS', continent: 'Asia' },
  { asn: 'AS7922', as_name: 'Comcast Cable Communications, LLC', as_domain: 'comcast.com', country_code: 'US', country: 'United States', continent_code: 'NA', continent: 'North America', isp: 'Comcast' },
  { asn: 'AS28573', as_name: 'Claro NXT Telecomunicacoes Ltda', as_domain: 'claro.com.br', country_code: 'BR', country: 'Brazil', continent_code: 'SA', continent: 'South America', isp: 'Claro' },
];

const net = (asn: string) => NETWORKS.find((n) => n.asn === asn)!;

function fixture(record: Omit<ThreatRecord, 'whitelist' | 'whitelistDescription' | 'whitelistNote' | 'whitelistValue'> & Partial<ThreatRecord>): ThreatRecord {
  return { whitelist: null, whitelistDescription: null, whitelistNote: null, whitelistValue: null, ...record };
}

/** Named records, fixed whatever the seed. Tests and demo pages use these IPs. */
export const FIXTURES = {
  critical: fixture({
    ip: '185.220.101.1', score: 95, threatLevel: 'CRITICAL', ipRep: 'known attacker', totalHits: 1423,
    lastAttack: '2025-11-28T22:14:05.000Z', message: 'IP found!',
    description: 'Tor exit relay seen in SSH brute force and web exploitation',
    ipInfo: { asn: 'AS60729', as_name: 'Stiftung Erneuerbare Freiheit', as_domain: 'torservers.net', country_code: 'DE', country: 'Germany', continent_code: 'EU', continent: 'Europe', isp: 'Stiftung Erneuerbare Freiheit' },
  }),
  high: fixture({
    ip: '23.129.64.130', score: 78, threatLevel: 'HIGH', ipRep: 'malicious', totalHits: 311,
    lastAttack: '2025-10-02T08:01:59.250Z', message: 'IP found in database',
    description: 'Repeated credential stuffing against login endpoints',
    ipInfo: { asn: 'AS396507', as_name: 'Emerald Onion', as_domain: 'emeraldonion.org', country_code: 'US', country: 'United States', continent_code: 'NA', continent: 'North America', isp: 'Emerald Onion' },
  }),
  suspicious: fixture({
    ip: '45.155.205.233', score: 55, threatLevel: 'MEDIUM', ipRep: 'suspicious', totalHits: 37,
    lastAttack: '2025-09-14T17:45:12.000Z', message: 'IP found!', description: 'Port scanning from a bulletproof host',
    ipInfo: { asn: 'AS206728', as_name: 'Media Land LLC', as_domain: 'ml.net', country_code: 'RU', country: 'Russia', continent_code: 'EU', continent: 'Europe', isp: 'Media Land' },
  }),
  low: fixture({
    ip: '80.82.77.139', score: 22, threatLevel: 'LOW', ipRep: 'scanner', totalHits: 4,
    lastAttack: '2025-06-30T03:12:44.000Z', message: 'IP found!', description: 'Internet-wide research scanner',
    ipInfo: { asn: 'AS202425', as_name: 'IP Volume inc', as_domain: 'ipvolume.net', country_code: 'NL', country: 'Netherlands', continent_code: 'EU', continent: 'Europe', isp: 'IP Volume' },
  }),
  clean: fixture({
    ip: '8.8.8.8', score: 0, threatLevel: 'LOW', ipRep: 'clean', totalHits: 0, lastAttack: null,
    message: 'IP found!', description: 'Google Public DNS', ipInfo: net('AS15169'),
  }),
  whitelisted: fixture({
    ip: '1.1.1.1', score: 0, threatLevel: 'LOW', totalHits: 0, lastAttack: '',
    message: 'IP is whitelisted', description: 'Cloudflare DNS',
    whitelist: { id: 'wl-0001', reason: 'Public DNS resolver', added_by: 'ipswamp' },
    whitelistDescription: 'Cloudflare DNS', whitelistNote: 'Anycast resolver, never block', whitelistValue: '1.1.1.1',
    ipInfo: net('AS13335'),
  }),
  ipv6: fixture({
    ip: '2a0b:4140:ddd::1', score: 88, threatLevel: 'CRITICAL', ipRep: 'malicious', totalHits: 902,
    lastAttack: '2025-11-20T11:00:00.000Z', message: 'IP found!', description: 'IPv6 SMTP spam and brute force source',
    ipInfo: { asn: 'AS58212', as_name: 'dataforest GmbH', as_domain: 'dataforest.net', country_code: 'DE', country: 'Germany', continent_code: 'EU', continent: 'Europe', isp: 'dataforest' },
  }),
  /** The public documentation's own example: fractional score, `+0000` microseconds, two-word ip_rep, no isp. */
  docExample: fixture({
    ip: '66.249.66.1', score: 13.01131, threatLevel: 'LOW', ipRep: 'bot, crawler', totalHits: 2,
    lastAttack: '2025-11-29T09:37:40.604584+0000', message: 'IP found!', description: 'Search engine crawler',
    ipInfo: { asn: 'AS15169', as_name: 'Google LLC', as_domain: 'google.com', country_code: 'US', country: 'United States', continent_code: 'NA', continent: 'North America' },
  }),
  /** Markup in every text field: the extension must render it as text. */
  xss: fixture({
    ip: '93.184.216.66', score: 67, threatLevel: 'HIGH', ipRep: '<img src=x onerror=alert(1)>', totalHits: 66,
    lastAttack: '2025-08-08T08:08:08.000Z', message: 'IP found!', description: '<script>alert(1)</script>',
    ipInfo: { asn: 'AS15133', as_name: '<b onmouseover=alert(2)>Edgecast</b>', as_domain: 'javascript:alert(3)', country_code: 'US', country: 'United States', continent_code: 'NA', continent: 'North America', isp: '"><svg onload=alert(4)>' },
  }),
  /** Bidi controls in API text: "exe.\u202Elive" would read as "evil.exe" if rendered raw. */
  bidi: fixture({
    ip: '194.26.29.113', score: 91, threatLevel: 'CRITICAL', ipRep: 'exe.\u202Elive', totalHits: 202,
    lastAttack: '2025-10-02T02:02:02.000Z', message: 'IP found!', description: 'Dropper \u2067fdp.exe\u2069 served from here',
    ipInfo: { asn: 'AS57523', as_name: 'Chang Way \u202ETechnologies', as_domain: 'chang-way.example', country_code: 'HK', country: 'Hong Kong', continent_code: 'AS', continent: 'Asia' },
  }),
} satisfies Record<string, ThreatRecord>;

/** Public IPs that are never in the database, whatever the seed. */
export const NOT_FOUND_IPS = ['4.2.2.2', '9.9.9.9', '2001:4860:4860::8888'] as const;

export interface Dataset {
  /** The record for a valid IP (any spelling), or null when it is not in the database. */
  lookup(ip: string): ThreatRecord | null;
  /** Network details for any IP, found or not (detailed answers of the clean-row mode). */
  networkFor(ip: string): SimIpInfo;
}

export function createDataset(seed: string = DEFAULT_SEED): Dataset {
  const fixtures = new Map<string, ThreatRecord>(Object.values(FIXTURES).map((r) => [r.ip, r]));
  const absent = new Set<string>(NOT_FOUND_IPS.map((ip) => canonicalIp(ip)!));
  return {
    lookup(ip) {
      const canonical = canonicalIp(ip);
      if (!canonical || absent.has(canonical)) return null;
      return fixtures.get(canonical) ?? generated(seed, canonical);
    },
    networkFor(ip) {
      const canonical = canonicalIp(ip) ?? ip;
      return fixtures.get(canonical)?.ipInfo ?? NETWORKS[hash(`${seed}|net|${canonical}`) % NETWORKS.length]!;
    },
  };
}

/** About 40% of IPs are in the database, as on a typical SIEM page full of scanners. */
export const FOUND_RATIO = 0.4;

const REPUTATIONS: Record<SimThreatLevel, string[]> = {
  LOW: ['clean', 'bot, crawler', 'scanner'],
  MEDIUM: ['suspicious', 'scanner', 'brute force'],
  HIGH: ['malicious', 'brute force', 'known attacker'],
  CRITICAL: ['known attacker', 'malicious', 'botnet'],
};
const HITS: Record<SimThreatLevel, [number, number]> = { LOW: [0, 5], MEDIUM: [5, 80], HIGH: [50, 800], CRITICAL: [300, 5000] };
const PERIOD_START = Date.UTC(2025, 0, 1);

function generated(seed: string, ip: string): ThreatRecord | null {
  const random = prng(hash(`${seed}|${ip}`));
  if (random() >= FOUND_RATIO) return null;
  const band = random();
  let score = band < 0.35 ? int(random, 0, 29) : band < 0.7 ? int(random, 30, 59) : band < 0.9 ? int(random, 60, 84) : int(random, 85, 100);
  // One record in five has a fractional score, as the real service sends.
  if (random() < 0.2 && score < 100) score = Math.round((score + random()) * 1e5) / 1e5;
  const threatLevel = levelFor(score);
  const ipRep = pick(random, REPUTATIONS[threatLevel]);
  const [minHits, maxHits] = HITS[threatLevel];
  const totalHits = ipRep === 'clean' ? 0 : int(random, Math.max(1, minHits), maxHits);
  const when = PERIOD_START + Math.floor(random() * 330 * 86_400_000);
  const lastAttack = totalHits === 0 ? null : random() < 0.5 ? new Date(when).toISOString() : plusZeroFormat(when, int(random, 0, 999));
  return {
    ip, score, threatLevel, ipRep, totalHits, lastAttack,
    message: random() < 0.5 ? 'IP found!' : 'IP found in database',
    description: totalHits === 0 ? 'No malicious activity recorded' : `${ipRep} activity, ${totalHits} hits recorded`,
    whitelist: null, whitelistDescription: null, whitelistNote: null, whitelistValue: null,
    ipInfo: pick(random, NETWORKS),
  };
}

export function levelFor(score: number): SimThreatLevel {
  if (score >= 85) return 'CRITICAL';
  if (score >= 60) return 'HIGH';
  if (score >= 30) return 'MEDIUM';
  return 'LOW';
}

/** `2025-11-29T09:37:40.604584+0000`: microseconds and an offset without a colon. */
function plusZeroFormat(epochMs: number, extraMicros: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 23)}${String(extraMicros).padStart(3, '0')}+0000`;
}

/** FNV-1a, 32 bit. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: small, fast, good enough to spread fields (and to shuffle bench workloads). */
export function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function int(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}
