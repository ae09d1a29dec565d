/**
 * The STIX 2.1 rules the export must follow, checked independently of lib/export: identifier
 * format, deterministic observable ids (recomputed here with node:crypto's SHA-1, not the uuid
 * package), RFC 3339 timestamps with milliseconds, the pattern grammar for one IPv4/IPv6
 * address, required properties per object type, and references that stay inside the bundle.
 * Returns every violation found, so a failing test says what is wrong.
 */
import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

const NAMESPACE = '00abedb4-aa42-466c-9c01-fed23315a9b7';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TYPE = /^[a-z0-9][a-z0-9-]{1,248}[a-z0-9]$/;
const TIMESTAMP_MS = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)\.\d{3}Z$/;
const PATTERN = /^\[(ipv4-addr|ipv6-addr):value = '((?:[^'\\]|\\['\\])*)'\]$/;

/** UUIDv5 by RFC 4122 section 4.3, written out with node:crypto. */
export function uuidV5(name: string, namespace = NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(Buffer.concat([ns, Buffer.from(name, 'utf8')])).digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const COMMON_SDO = ['type', 'spec_version', 'id', 'created', 'modified'];
const REQUIRED: Record<string, string[]> = {
  identity: [...COMMON_SDO, 'name'],
  indicator: [...COMMON_SDO, 'pattern', 'pattern_type', 'valid_from'],
  location: [...COMMON_SDO],
  note: [...COMMON_SDO, 'content', 'object_refs'],
  relationship: [...COMMON_SDO, 'relationship_type', 'source_ref', 'target_ref'],
  'ipv4-addr': ['type', 'id', 'value'],
  'ipv6-addr': ['type', 'id', 'value'],
  'autonomous-system': ['type', 'id', 'number'],
};

type Obj = Record<string, unknown> & { type: string; id: string };

function refsOf(obj: Obj): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(obj)) {
    if (key.endsWith('_ref') && typeof value === 'string') out.push(value);
    if (key.endsWith('_refs') && Array.isArray(value)) out.push(...value.map(String));
  }
  return out;
}

export function unescapePattern(literal: string): string {
  return literal.replace(/\\(['\\])/g, '$1');
}

export function stixViolations(bundle: unknown): string[] {
  const v: string[] = [];
  const b = bundle as { type?: unknown; id?: unknown; objects?: unknown };
  if (b.type !== 'bundle') v.push('bundle: type is not "bundle"');
  if (typeof b.id !== 'string' || !b.id.startsWith('bundle--') || !UUID.test(b.id.slice(8))) v.push(`bundle: bad id ${String(b.id)}`);
  if (!Array.isArray(b.objects)) return [...v, 'bundle: objects is not an array'];
  const objects = b.objects as Obj[];
  const ids = new Set<string>();
  for (const o of objects) {
    const where = `${o.type} ${o.id}`;
    if (!TYPE.test(o.type)) v.push(`${where}: bad type`);
    const [prefix, uuid] = String(o.id).split('--');
    if (prefix !== o.type || !uuid || !UUID.test(uuid)) v.push(`${where}: id is not ${o.type}--<uuid>`);
    if (ids.has(o.id)) v.push(`${where}: duplicate id`);
    ids.add(o.id);
    if (o.spec_version !== '2.1') v.push(`${where}: spec_version is not "2.1"`);
    for (const key of REQUIRED[o.type] ?? []) if (o[key] === undefined || o[key] === '') v.push(`${where}: missing ${key}`);
    for (const key of ['created', 'modified', 'valid_from', 'valid_until']) {
      if (o[key] !== undefined && (typeof o[key] !== 'string' || !TIMESTAMP_MS.test(o[key]))) v.push(`${where}: ${key} not RFC 3339 with ms: ${String(o[key])}`);
    }
    if (typeof o.created === 'string' && typeof o.modified === 'string' && o.modified < o.created) v.push(`${where}: modified before created`);
    if (o.confidence !== undefined && !(Number.isInteger(o.confidence) && (o.confidence as number) >= 0 && (o.confidence as number) <= 100)) v.push(`${where}: confidence not 0-100`);
    if (o.type === 'ipv4-addr' || o.type === 'ipv6-addr') {
      const value = String(o.value);
      if (o.type === 'ipv4-addr' ? !isIPv4(value) : !isIPv6(value)) v.push(`${where}: value ${value} is not one ${o.type}`);
      if (o.id !== `${o.type}--${uuidV5(JSON.stringify({ value }))}`) v.push(`${where}: not the deterministic id of ${value}`);
    }
    if (o.type === 'autonomous-system') {
      if (!Number.isInteger(o.number)) v.push(`${where}: number is not an integer`);
      if (o.id !== `autonomous-system--${uuidV5(JSON.stringify({ number: o.number }))}`) v.push(`${where}: not the deterministic id of AS${String(o.number)}`);
    }
    if (o.type === 'location' && o.country === undefined && o.region === undefined) v.push(`${where}: neither country nor region`);
    if (o.type === 'location' && o.country !== undefined && !/^[A-Z]{2}$/.test(String(o.country))) v.push(`${where}: country is not ISO 3166-1 alpha-2`);
    if (o.type === 'indicator') {
      if (o.pattern_type !== 'stix') v.push(`${where}: pattern_type is not stix`);
      const m = PATTERN.exec(String(o.pattern));
      if (!m) v.push(`${where}: pattern ${String(o.pattern)} is not [ipv4-addr|ipv6-addr:value = '…']`);
      else {
        const ip = unescapePattern(m[2]!);
        if (m[1] === 'ipv4-addr' ? !isIPv4(ip) : !isIPv6(ip)) v.push(`${where}: pattern holds ${ip}, not one ${m[1]}`);
      }
    }
    if (o.type === 'note' && (!Array.isArray(o.object_refs) || o.object_refs.length === 0)) v.push(`${where}: note without object_refs`);
    if (o.type === 'identity' && o.identity_class === undefined) v.push(`${where}: identity without identity_class`);
  }
  for (const o of objects) {
    for (const ref of refsOf(o)) if (!ids.has(ref)) v.push(`${o.type} ${o.id}: reference ${ref} is not in the bundle`);
  }
  return v;
}
