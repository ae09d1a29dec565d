/**
 * A deterministic SIEM-style text corpus for throughput runs: syslog, web access, JSON, CEF,
 * firewall CSV, Windows events and threat-report prose, with the noise that trips naive
 * finders (versions, OIDs, timestamps, MACs, hashes, C++ scopes). Seeded, so every run and
 * every tool reads the same bytes.
 */
import { seededRandom } from '../../seeded-random';

type Random = () => number;

const int = (r: Random, n: number) => Math.floor(r() * n);
const pick = <T>(r: Random, items: readonly T[]): T => items[int(r, items.length)]!;

function ipv4(r: Random): string {
  const first = pick(r, [10, 172, 192, 45, 185, 203, 198, 91, 8, 104, 52, 13, 77, 100]);
  return `${first}.${int(r, 256)}.${int(r, 256)}.${1 + int(r, 254)}`;
}

function ipv6(r: Random): string {
  const groups = Array.from({ length: 4 }, () => int(r, 0x10000).toString(16));
  return pick(r, [`2001:db8:${groups[0]}::${groups[1]}`, `2a01:4f8:${groups.join(':')}::1`, `fe80::${groups.slice(0, 4).join(':')}`, `::ffff:${ipv4(r)}`]);
}

const ip = (r: Random) => (r() < 0.85 ? ipv4(r) : ipv6(r));
const hexString = (r: Random, n: number) => Array.from({ length: n }, () => int(r, 16).toString(16)).join('');
const time = (r: Random) => `${String(int(r, 24)).padStart(2, '0')}:${String(int(r, 60)).padStart(2, '0')}:${String(int(r, 60)).padStart(2, '0')}`;
const mac = (r: Random) => Array.from({ length: 6 }, () => hexString(r, 2)).join(':');

const LINES: ((r: Random) => string)[] = [
  (r) => `Jan 12 ${time(r)} bastion sshd[${int(r, 9999)}]: Failed password for invalid user admin from ${ipv4(r)} port ${int(r, 65535)} ssh2`,
  (r) => `${ip(r)} - - [12/Jan/2024:${time(r)} +0000] "GET /api/v${int(r, 3)}/items?id=${int(r, 1e6)} HTTP/1.1" 200 ${int(r, 99999)} "-" "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"`,
  (r) => `{"timestamp":"2024-01-12T${time(r)}.${int(r, 999999)}+0000","event_type":"alert","src_ip":"${ip(r)}","src_port":${int(r, 65535)},"dest_ip":"${ipv4(r)}","dest_port":443,"proto":"TCP","alert":{"signature_id":${int(r, 3e6)},"rev":${int(r, 9)}}}`,
  (r) => `CEF:0|Fortinet|FortiGate|v7.2.4.${int(r, 9)}|00013|traffic:forward accept|3|src=${ipv4(r)} dst=${ipv4(r)} spt=${int(r, 65535)} dpt=443 smac=${mac(r)}`,
  (r) => `1,2024/01/12 ${time(r)},0128010${int(r, 99999)},TRAFFIC,end,${ipv4(r)},${ipv4(r)},${ipv4(r)},${ipv4(r)},Allow-Web,,,ssl,vsys1,trust,untrust,0x400053,tcp,allow,${int(r, 9999)}`,
  (r) => `EventCode=4625 Source_Network_Address=${ip(r)} Source_Port=${int(r, 65535)} Workstation_Name=WS-${int(r, 9999)} FileVersion: 10.0.19041.${int(r, 9999)}`,
  (r) => `Indicator ${ipv4(r).replaceAll('.', '[.]')} contacted hxxp://${ipv4(r)}/bins/x.sh; hash ${hexString(r, 32)}; OID 1.3.6.1.4.1.${int(r, 9999)}`,
  (r) => `kernel: [${int(r, 9999999)}.${int(r, 999999)}] IN=eth0 OUT= MAC=${mac(r)}:${mac(r)}:08:00 SRC=${ipv4(r)} DST=${ipv4(r)} LEN=40 TTL=${int(r, 255)} PROTO=TCP SPT=${int(r, 65535)} DPT=22`,
  (r) => `std::vector<int> v; app v${int(r, 20)}.${int(r, 9)}.${int(r, 9)}.${int(r, 99)} built ${time(r)} from 1.2.3.4.${int(r, 99)} upstream ${ip(r)}:${int(r, 65535)}`,
  (r) => `${ip(r)},${ip(r)},${int(r, 65535)},blocked,${int(r, 9999)},"${ip(r)}"`,
];

/** Firewall exports and flow logs: an address every 20 to 30 characters. */
const DENSE_LINES: ((r: Random) => string)[] = [
  (r) => `${ipv4(r)},${ipv4(r)},${int(r, 65535)},"${ip(r)}"`,
  (r) => `SRC=${ipv4(r)} DST=${ipv4(r)} SPT=${int(r, 65535)}`,
  (r) => `${ipv4(r)}:${int(r, 65535)} -> ${ip(r)}:443`,
];

/** Lines until `bytes` characters are reached; `dense` mixes in address-heavy lines. */
export function generateSiemCorpus(bytes: number, { seed = 20240112, dense = false } = {}): string {
  const random = seededRandom(seed);
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const line = pick(random, dense && random() < 0.6 ? DENSE_LINES : LINES)(random);
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}
