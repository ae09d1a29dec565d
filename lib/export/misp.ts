/**
 * MISP event JSON of looked-up IPs, in the shape MISP's "Add event from JSON" (and
 * `POST /events/add`) accepts: `{ "Event": { …, "Attribute": [ … ] } }`. One attribute per IP
 * that the API answered for (export-items.ts decides which), of the type the analyst chose
 * (`ip-dst`: the IP was contacted, `ip-src`: it connected to us); `to_ids` only where the STIX
 * export makes an indicator, so both formats agree on what is reported as malicious.
 *
 * The event is not published and its distribution is "Your organisation only": sharing it
 * further is the analyst's decision in MISP, not ours. UUIDs are random v4, which MISP
 * expects; MISP correlates the same IP across events by value, not by UUID.
 */
import { escapeBidiInJson } from '../visible-text';
import type { Severity } from '../severity';
import { isIndicator, type ExportContext, type ExportSet } from './export-items';
import { dataText, itemSummary, originText, rfc3339 } from './export-text';

export type MispIpType = 'ip-dst' | 'ip-src';

/** Tag namespace for the severity (`ip-reputation-lens:severity="high"`), taxonomy style. */
export const SEVERITY_TAG_NAMESPACE = 'ip-reputation-lens:severity';

export interface MispAttribute {
  uuid: string;
  type: MispIpType;
  category: 'Network activity';
  value: string;
  to_ids: boolean;
  comment: string;
  /** "5": inherit the event's distribution. */
  distribution: '5';
  timestamp: string;
  Tag: { name: string }[];
}

export interface MispEvent {
  Event: {
    uuid: string;
    info: string;
    date: string;
    timestamp: string;
    /** 1 high, 2 medium, 3 low, 4 undefined: from the riskiest IP. */
    threat_level_id: '1' | '2' | '3' | '4';
    /** 0: initial. */
    analysis: '0';
    /** 0: your organisation only. */
    distribution: '0';
    published: false;
    Tag: { name: string }[];
    Attribute: MispAttribute[];
  };
}

export interface MispOptions {
  attributeType: MispIpType;
  newUuid?: () => string;
}

export function severityTag(severity: Severity): string {
  return `${SEVERITY_TAG_NAMESPACE}="${severity}"`;
}

function threatLevelId(severities: readonly Severity[]): MispEvent['Event']['threat_level_id'] {
  if (severities.some((s) => s === 'critical' || s === 'high')) return '1';
  if (severities.includes('medium')) return '2';
  if (severities.includes('low')) return '3';
  return '4';
}

/** Epoch seconds as MISP writes them (a string of digits). */
function unixSeconds(epochMs: number): string {
  return String(Math.floor((Number.isFinite(epochMs) ? epochMs : Date.now()) / 1000));
}

export function buildMispEvent(set: ExportSet, context: ExportContext, options: MispOptions): MispEvent {
  const newUuid = options.newUuid ?? (() => crypto.randomUUID());
  const exportedAt = rfc3339(context.exportedAt, Date.now());
  const attributes = set.items.map(
    (item): MispAttribute => ({
      uuid: newUuid(),
      type: options.attributeType,
      category: 'Network activity',
      value: item.ip,
      to_ids: isIndicator(item.severity, context.mediumIndicators),
      comment: `${itemSummary(item)}; looked up ${rfc3339(item.lookedUpAt, context.exportedAt)}`,
      distribution: '5',
      timestamp: unixSeconds(Number.isFinite(item.lookedUpAt) ? item.lookedUpAt : context.exportedAt),
      Tag: [{ name: severityTag(item.severity) }],
    }),
  );
  const count = `${attributes.length} IP ${attributes.length === 1 ? 'address' : 'addresses'}`;
  return {
    Event: {
      uuid: newUuid(),
      info: dataText(`IP Reputation Lens: ${count} ${originText(context)}, ${exportedAt}`),
      date: exportedAt.slice(0, 10),
      timestamp: unixSeconds(context.exportedAt),
      threat_level_id: threatLevelId(set.items.map((i) => i.severity)),
      analysis: '0',
      distribution: '0',
      published: false,
      Tag: [{ name: 'ip-reputation-lens:export' }],
      Attribute: attributes,
    },
  };
}

export function mispJson(event: MispEvent): string {
  return `${escapeBidiInJson(JSON.stringify(event, null, 2))}\n`;
}
