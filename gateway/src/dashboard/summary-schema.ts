/**
 * The dashboard's one JSON answer, `GET /dashboard/api/summary`. The gateway builds it and
 * checks it against this schema before sending; the page parses it with the same schema, so a
 * change on one side that the other does not follow fails loudly in tests, never as a blank
 * or wrong number on a SOC lead's screen.
 */
import { z } from '../../../lib/zod';

const count = z.number().int().nonnegative();

export const dayRowSchema = z.object({
  /** UTC day, YYYY-MM-DD. */
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  /** Units the gateway bought from the API that day. */
  paid: count,
  /** Units the cached answers would have cost had each analyst bought them again. */
  saved: count,
  /** IPs answered from the shared cache (or by a purchase another analyst had in flight). */
  hits: count,
  /** IPs bought from the API. */
  misses: count,
  /** The organisation's usage and limit as last seen that day (null: not seen that day; limit null: unlimited). */
  quotaUsed: count.nullable(),
  quotaLimit: count.nullable(),
});

export const analystRowSchema = z.object({
  name: z.string(),
  /** `token`: a personal token; `sso`: signed in through the identity provider. */
  kind: z.enum(['token', 'sso']),
  unitsToday: count,
  ipsToday: count,
  /** Units per UTC day; null: no budget of their own. */
  budget: count.nullable(),
  lastUsedAt: z.string().nullable(),
});

export const seenIpRowSchema = z.object({
  ip: z.string(),
  analysts: count,
  lastSeenAt: z.string().nullable(),
  /** lib/severity's name from the cached answer with the default thresholds; null: no cached answer. */
  severity: z.string().nullable(),
  score: z.number().nullable(),
});

export const summarySchema = z.object({
  generatedAt: z.string(),
  historyDays: count,
  days: z.array(dayRowSchema),
  totals: z.object({ paid: count, saved: count, hits: count, misses: count, hitRate: z.number().min(0).max(1).nullable() }),
  quota: z.object({
    used: count,
    /** null: unlimited (or not read yet). */
    limit: count.nullable(),
    reserved: count,
    reservePercent: z.number(),
    /** The units lookups may reach (limit minus the reserve); null: no ceiling. */
    allowed: count.nullable(),
    /** Units left before the reserve stops purchases; null: no ceiling. */
    leftBeforeReserve: count.nullable(),
    refreshedAt: z.string().nullable(),
    organizationId: z.string().nullable(),
  }),
  analysts: z.array(analystRowSchema),
  /** null: this gateway keeps no team sightings. */
  mostSeen: z.array(seenIpRowSchema).nullable(),
  replicas: z.array(z.object({ id: z.string(), host: z.string(), startedAt: z.string(), seenAt: z.string(), self: z.boolean() })),
  store: z.object({ kind: z.string(), ok: z.boolean(), latencyMs: z.number().nonnegative().nullable() }),
});

export type Summary = z.infer<typeof summarySchema>;
export type DayRow = z.infer<typeof dayRowSchema>;
export type AnalystRow = z.infer<typeof analystRowSchema>;

/** The page's sign-in refusals and the endpoint's errors: `{ statusCode, message }`, the API's shape. */
export const errorSchema = z.object({ statusCode: z.number(), message: z.string() });
