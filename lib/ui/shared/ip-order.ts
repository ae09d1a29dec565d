/**
 * A sort key that orders addresses numerically (10.0.0.9 before 10.0.0.10), IPv4 before IPv6.
 * Inputs are the canonical forms lib/ip produces; anything else sorts last, by its text.
 */
function v4Hex(ip: string): string | null {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  let out = '';
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    out += Number(part).toString(16).padStart(2, '0');
  }
  return out;
}

function v6Hex(ip: string): string | null {
  let text = ip.toLowerCase();
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hextets.
  const tail = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (tail) {
    const hex = v4Hex(tail[1]!);
    if (!hex) return null;
    text = `${text.slice(0, tail.index)}${hex.slice(0, 4)}:${hex.slice(4)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => g.padStart(4, '0')).join('');
}

export function ipSortKey(ip: string): string {
  const v4 = v4Hex(ip);
  if (v4) return `4${v4}`;
  const v6 = v6Hex(ip);
  if (v6) return `6${v6}`;
  return `9${ip}`;
}

export function compareIps(a: string, b: string): number {
  const ka = ipSortKey(a);
  const kb = ipSortKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
