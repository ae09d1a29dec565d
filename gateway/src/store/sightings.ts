/**
 * Team sightings: per IP, the distinct analysts who looked it up, and when. Kept for a
 * retention period (an analyst's sighting older than it is forgotten), so what the gateway
 * remembers about who looked at what never outlives what the operator announced.
 *
 * One IP's record, as both stores keep it (Redis as one string per IP, beside its answer, so a
 * bulk request reads them in the same MGET):
 *
 *   [first, analyst1, last1, analyst2, last2, …]        (epoch ms)
 *
 * `first` is the earliest sighting still kept; each analyst appears once with the last time
 * they looked it up. Merging (mergeSighting here; the same rules in Lua in redis-store.ts)
 * drops analysts whose last sighting is older than the retention, and moves `first` forward
 * when the sighting it was is gone.
 */

export interface Sightings {
  /** Epoch ms of the earliest sighting still kept. */
  first: number;
  /** Analyst (token or sign-in name) → epoch ms of their last lookup of the IP. */
  analysts: Record<string, number>;
}

export interface SightingEntry {
  ip: string;
  analyst: string;
  at: number;
}

/** What an answer says about its IP's sightings before this request (wire: `gateway.sightings`). */
export interface SightingSummary {
  count: number;
  first_seen: string | null;
  last_seen: string | null;
  /** No analyst of the team looked this IP up within the retention period. */
  new_to_team: boolean;
  /** The asking analyst is one of `count`. */
  by_you: boolean;
  /** Only when the operator turns names on; most recent first. */
  names?: string[];
}

export function encodeSightings(record: Sightings): string {
  const flat: (string | number)[] = [record.first];
  for (const [name, last] of Object.entries(record.analysts)) flat.push(name, last);
  return JSON.stringify(flat);
}

/** A stored record, or null when the value is not one (a bad value reads as "no sightings"). */
export function decodeSightings(raw: string | null | undefined): Sightings | null {
  if (typeof raw !== 'string') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || typeof parsed[0] !== 'number') return null;
  const analysts = noPrototype();
  for (let i = 1; i + 1 < parsed.length; i += 2) {
    const name: unknown = parsed[i];
    const last: unknown = parsed[i + 1];
    if (typeof name === 'string' && typeof last === 'number') analysts[name] = last;
  }
  return { first: parsed[0], analysts };
}

/** The record without analysts last seen before `cutoff`; null when none is left. */
export function pruneSightings(record: Sightings | null, cutoff: number): Sightings | null {
  if (!record) return null;
  const analysts = noPrototype();
  let oldest = Infinity;
  for (const [name, last] of Object.entries(record.analysts)) {
    if (last < cutoff) continue;
    analysts[name] = last;
    oldest = Math.min(oldest, last);
  }
  if (oldest === Infinity) return null;
  return { first: record.first >= cutoff ? Math.min(record.first, oldest) : oldest, analysts };
}

/** `analyst` looked the IP up at `at`: the record to keep (retention applied). */
export function mergeSighting(record: Sightings | null, analyst: string, at: number, cutoff: number): Sightings {
  const kept = pruneSightings(record, cutoff);
  if (!kept) {
    const analysts = noPrototype();
    analysts[analyst] = at;
    return { first: at, analysts };
  }
  kept.analysts[analyst] = Math.max(kept.analysts[analyst] ?? 0, at);
  kept.first = Math.min(kept.first, at);
  return kept;
}

export function summarizeSightings(record: Sightings | null, options: { cutoff: number; analyst: string; names: boolean }): SightingSummary {
  const kept = pruneSightings(record, options.cutoff);
  if (!kept) return { count: 0, first_seen: null, last_seen: null, new_to_team: true, by_you: false, ...(options.names ? { names: [] } : {}) };
  const byRecent = Object.entries(kept.analysts).sort((a, b) => b[1] - a[1]);
  return {
    count: byRecent.length,
    first_seen: new Date(kept.first).toISOString(),
    last_seen: new Date(byRecent[0]![1]).toISOString(),
    new_to_team: false,
    by_you: Object.hasOwn(kept.analysts, options.analyst),
    ...(options.names ? { names: byRecent.map(([name]) => name) } : {}),
  };
}

/** One IP of the most-seen list (the dashboard's): its analysts and its latest sighting. */
export interface MostSeen {
  ip: string;
  analysts: number;
  last: number;
}

/** Analyst names are the operator's (token names, sign-in names): no inherited keys to meet. */
function noPrototype(): Record<string, number> {
  return Object.create(null) as Record<string, number>;
}
