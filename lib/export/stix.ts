/**
 * STIX 2.1 bundle of looked-up IPs, for OpenCTI, TheHive and any TAXII-fed tool. Pure: the
 * popup, the background (card and context menu) and the tests build the same bundle.
 *
 *   identity (the reputation source) ◄── created_by_ref ── indicator ── based-on ──► ipv4-addr / ipv6-addr
 *                                                           (high, critical)          │ belongs_to_refs ──► autonomous-system
 *   note ── object_refs ──► every observable and indicator                            └─ located-at ──► location (country)
 *
 * Observables get the deterministic id the specification defines (UUIDv5 of the canonical JSON
 * of their id-contributing properties, in the STIX namespace), so the same IP exported twice,
 * by two analysts, is one object in the case tool. Objects that exist per export (indicator,
 * note, relationships, location) get random UUIDv4 ids. A pattern holds only the canonical IP
 * that lib/ip checked; text from the API or the page is carried as string data only.
 */
import { v5 as uuidv5 } from 'uuid';
import { escapeBidiInJson } from '../visible-text';
import { isIndicator, type ExportContext, type ExportItem, type ExportSet } from './export-items';
import { dataText, itemSummary, originText, reputationLabels, rfc3339 } from './export-text';
import { isValidIp, isValidIpv4 } from '../ip/validate-ip';

/** The STIX 2.1 namespace for deterministic SCO identifiers (section 2.9 of the specification). */
export const STIX_NAMESPACE = '00abedb4-aa42-466c-9c01-fed23315a9b7';

/**
 * The reputation source as one fixed identity: the same id and content in every export, so a
 * case tool keeps one "IP Reputation Lens" author instead of one per file.
 */
export const SOURCE_IDENTITY = {
  type: 'identity',
  spec_version: '2.1',
  id: 'identity--5f0f3f5e-7c59-4c1e-9a51-3d2b4c8e6a10',
  created: '2026-11-28T00:00:00.000Z',
  modified: '2026-11-28T00:00:00.000Z',
  name: 'IP Reputation Lens',
  description: 'Threat reputation of IP addresses looked up by the IP Reputation Lens browser extension.',
  identity_class: 'system',
} as const;

export type StixObject = { type: string; id: string; spec_version?: string } & Record<string, unknown>;
export interface StixBundle {
  type: 'bundle';
  id: string;
  objects: StixObject[];
}

export interface StixDeps {
  /** A random UUIDv4 (tests pass a counter). */
  newUuid?: () => string;
}

/** `ipv4-addr--<uuidv5>` over `{"value":"…"}`, `autonomous-system--…` over `{"number":N}`. */
export function scoId(type: 'ipv4-addr' | 'ipv6-addr' | 'autonomous-system', contributing: { value: string } | { number: number }): string {
  // Canonical JSON (RFC 8785) of one string or integer property is what JSON.stringify writes.
  return `${type}--${uuidv5(JSON.stringify(contributing), STIX_NAMESPACE)}`;
}

/** A string literal of the STIX patterning grammar: backslash and quote escaped. */
export function patternString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** `[ipv4-addr:value = '203.0.113.7']`, or null for anything lib/ip does not accept as one address. */
export function ipPattern(ip: string): string | null {
  if (!isValidIp(ip)) return null;
  return `[${isValidIpv4(ip) ? 'ipv4-addr' : 'ipv6-addr'}:value = ${patternString(ip)}]`;
}

/**
 * STIX `confidence` (0-100) from the reputation: the score itself (rounded, clamped), since it
 * is the source's 0-100 belief that the IP is malicious; without a score, the threat level on
 * the specification's None/Low/Med/High scale (Appendix A): LOW 15, MEDIUM 50, HIGH and
 * CRITICAL 85. Nothing to go by: no confidence property.
 */
export function confidenceOf(item: Pick<ExportItem, 'score' | 'threatLevel'>): number | null {
  if (item.score !== null && Number.isFinite(item.score)) return Math.min(100, Math.max(0, Math.round(item.score)));
  switch (item.threatLevel) {
    case 'CRITICAL':
    case 'HIGH':
      return 85;
    case 'MEDIUM':
      return 50;
    case 'LOW':
      return 15;
    default:
      return null;
  }
}

export function buildStixBundle(set: ExportSet, context: ExportContext, deps: StixDeps = {}): StixBundle {
  const newUuid = deps.newUuid ?? (() => crypto.randomUUID());
  const now = rfc3339(context.exportedAt, Date.now());
  const common = () => ({ spec_version: '2.1', created: now, modified: now });
  const objects: StixObject[] = [{ ...SOURCE_IDENTITY }];
  const systems = new Map<number, StixObject>();
  const locations = new Map<string, StixObject>();
  const noteRefs: string[] = [];
  const lines: string[] = [];

  for (const item of set.items) {
    const type = item.version === 4 ? 'ipv4-addr' : 'ipv6-addr';
    const address: StixObject = { type, spec_version: '2.1', id: scoId(type, { value: item.ip }), value: item.ip };
    if (item.asn !== null) {
      let system = systems.get(item.asn);
      if (!system) {
        system = {
          type: 'autonomous-system',
          spec_version: '2.1',
          id: scoId('autonomous-system', { number: item.asn }),
          number: item.asn,
          ...(item.asName ? { name: dataText(item.asName) } : {}),
        };
        systems.set(item.asn, system);
      }
      address.belongs_to_refs = [system.id];
    }
    objects.push(address);
    noteRefs.push(address.id);
    lines.push(`${item.ip}: ${itemSummary(item)}; seen ${item.count} ${item.count === 1 ? 'time' : 'times'}; looked up ${rfc3339(item.lookedUpAt, context.exportedAt)}.`);

    if (item.countryCode) {
      let location = locations.get(item.countryCode);
      if (!location) {
        location = {
          type: 'location',
          id: `location--${newUuid()}`,
          ...common(),
          created_by_ref: SOURCE_IDENTITY.id,
          name: item.country ? dataText(item.country) : item.countryCode,
          country: item.countryCode,
        };
        locations.set(item.countryCode, location);
      }
      objects.push(relationship(newUuid(), common(), 'located-at', address.id, location.id));
    }

    const pattern = ipPattern(item.ip);
    if (pattern && isIndicator(item.severity, context.mediumIndicators)) {
      const confidence = confidenceOf(item);
      const labels = reputationLabels(item.reputation);
      const indicator: StixObject = {
        type: 'indicator',
        id: `indicator--${newUuid()}`,
        ...common(),
        created_by_ref: SOURCE_IDENTITY.id,
        name: `${item.ip} (${item.severity} risk)`,
        description: itemSummary(item),
        indicator_types: ['malicious-activity'],
        pattern,
        pattern_type: 'stix',
        pattern_version: '2.1',
        valid_from: rfc3339(item.lookedUpAt, context.exportedAt),
        ...(confidence === null ? {} : { confidence }),
        ...(labels.length ? { labels } : {}),
      };
      objects.push(indicator);
      noteRefs.push(indicator.id);
      objects.push(relationship(newUuid(), common(), 'based-on', indicator.id, address.id));
    }
  }
  objects.push(...systems.values(), ...locations.values());

  if (noteRefs.length) {
    const left = set.leftOut.length;
    objects.push({
      type: 'note',
      id: `note--${newUuid()}`,
      ...common(),
      created_by_ref: SOURCE_IDENTITY.id,
      abstract: `${set.items.length} IP ${set.items.length === 1 ? 'address' : 'addresses'} ${originText(context)}, exported ${now}`,
      content: [
        `IP addresses ${originText(context)}. Exported from IP Reputation Lens at ${now}.`,
        ...lines,
        ...(left ? [`${left} more ${left === 1 ? 'address was' : 'addresses were'} left out: private or reserved, not looked up, or the lookup failed.`] : []),
      ].join('\n'),
      object_refs: noteRefs,
    });
  }
  return { type: 'bundle', id: `bundle--${newUuid()}`, objects };
}

function relationship(uuid: string, common: Record<string, string>, kind: string, source: string, target: string): StixObject {
  return {
    type: 'relationship',
    id: `relationship--${uuid}`,
    ...common,
    created_by_ref: SOURCE_IDENTITY.id,
    relationship_type: kind,
    source_ref: source,
    target_ref: target,
  };
}

/** The file's text: indented JSON, bidi controls in strings written as `\uXXXX` escapes. */
export function stixJson(bundle: StixBundle): string {
  return `${escapeBidiInJson(JSON.stringify(bundle, null, 2))}\n`;
}
