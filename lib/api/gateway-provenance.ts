/**
 * A team gateway's additive `gateway` field on each answer: whether the answer came from the
 * team's cache and how old it was, and who on the team looked the IP up before. The public API
 * sends none (then nothing is read). Read tolerantly: a field this client cannot read is
 * dropped, never the answer it rides on.
 */
import { z } from '../zod';
import { toIsoTimestamp } from './timestamps';
import type { GatewayProvenance, TeamSightings } from './types';

const count = z.number().int().nonnegative();

const sightingsSchema = z.object({
  count,
  first_seen: z.string().nullish(),
  last_seen: z.string().nullish(),
  new_to_team: z.boolean(),
  by_you: z.boolean().optional(),
  names: z.array(z.string()).max(1000).optional(),
});

const provenanceSchema = z.object({
  cache: z.enum(['hit', 'miss', 'coalesced']),
  age: z.number().nonnegative().finite(),
  sightings: z.unknown().optional(),
});

function sightingsOf(raw: unknown): TeamSightings | null {
  const parsed = sightingsSchema.safeParse(raw);
  if (!parsed.success) return null;
  const s = parsed.data;
  return {
    count: s.count,
    firstSeen: toIsoTimestamp(s.first_seen),
    lastSeen: toIsoTimestamp(s.last_seen),
    newToTeam: s.new_to_team,
    byYou: s.by_you ?? false,
    names: s.names ?? null,
  };
}

/** The provenance of one answer, or undefined when it has none (the public API) or it is unreadable. */
export function provenanceOf(raw: unknown): GatewayProvenance | undefined {
  if (raw === undefined || raw === null) return undefined;
  const parsed = provenanceSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  return { cache: parsed.data.cache, ageMs: Math.round(parsed.data.age * 1000), sightings: sightingsOf(parsed.data.sightings) };
}
