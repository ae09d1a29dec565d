/**
 * Wire shapes of every answer, as zod schemas. Tolerant where the real service is known to vary
 * (free-text ip_rep, fractional or numeric-string scores, any last_attack, optional ipInfo
 * fields, null limits); strict where a wrong shape means a broken server or a wrong URL (no
 * `details` object, a bulk answer without `results`, a score made of letters).
 */
import { z } from '../zod';

/** A number, or a string that is one (`"13.01131"`): some proxies stringify numbers. */
const numeric = z.union([
  z.number(),
  z
    .string()
    .trim()
    .regex(/^-?\d+(\.\d+)?$/)
    .transform(Number),
]);

/** Text fields sometimes arrive as numbers (an ASN as 13335): keep them as text. */
const text = z.union([z.string(), z.number().transform(String)]);

const optionalNumber = numeric.nullish();

/**
 * A score the server could not give: `"n/a"`, `"-"`, `""`, `"unknown"` read as no score (null),
 * so the rest of the row (level, reputation, hits) is still shown. Other words fail the row.
 */
const NOT_AVAILABLE = /^\s*(n\/?a|-+|none|null|unknown)?\s*$/i;
const optionalScore = z.union([numeric, z.string().regex(NOT_AVAILABLE).transform(() => null)]).nullish();

/** `message: "IP is whitelisted"`; wording varies elsewhere, so this is the only test on it. */
export const WHITELISTED_MESSAGE = /white-?list/i;
const optionalText = text.nullish();

export const ipInfoSchema = z.object({
  ip: optionalText,
  asn: optionalText,
  as_name: optionalText,
  as_domain: optionalText,
  country_code: optionalText,
  country: optionalText,
  continent_code: optionalText,
  continent: optionalText,
  isp: optionalText,
});

/** Fields the single-lookup `details` and the bulk `data` rows share. */
const reputationFields = {
  ip: optionalText,
  score: optionalScore,
  // Parsed leniently in timestamps.ts: an odd timestamp must not sink a whole lookup.
  last_attack: z.unknown().optional(),
  ip_rep: optionalText,
  total_hits: optionalNumber,
  // Fields of the whitelist object are not documented: kept as given, shown as text.
  whitelist: z.unknown().optional(),
  whitelist_description: z.unknown().optional(),
  whitelist_note: z.unknown().optional(),
  whitelist_value: z.unknown().optional(),
};

export const detailsSchema = z.object(reputationFields);

export const singleLookupSchema = z
  .object({
    message: optionalText,
    description: optionalText,
    details: detailsSchema.optional(),
    ipInfo: ipInfoSchema.nullish(),
    // A team gateway's provenance (gateway-provenance.ts reads it; never fails the answer).
    gateway: z.unknown().optional(),
  })
  // A whitelisted answer may be thin; anything else without details is not a lookup answer.
  .refine((body) => body.details !== undefined || WHITELISTED_MESSAGE.test(body.message ?? ''), {
    message: 'details is missing',
    path: ['details'],
  });

export const bulkDataSchema = z.object({
  ...reputationFields,
  threat_score: optionalScore,
  threat_level: optionalText,
});

/** One row, validated on its own: a bad row fails only its own IP (bulk.ts). */
export const bulkResultSchema = z.object({
  // Null or missing on a garbled row: bulk.ts then matches it by position, when it can.
  ip: z.string().nullish(),
  data: bulkDataSchema.nullish(),
  error: optionalText,
  gateway: z.unknown().optional(),
});

/** The envelope only: each row is checked apart, so one odd row cannot sink a paid chunk. */
export const bulkLookupSchema = z.object({
  results: z.array(z.unknown()),
  total: optionalNumber,
  successful: optionalNumber,
  failed: optionalNumber,
});

export const apiKeyInfoSchema = z.object({
  uid: optionalText,
  name: optionalText,
  current_usage: optionalNumber,
  max_api_requests: optionalNumber,
  created_at: optionalText,
});

export const testKeySchema = z.object({
  success: z.boolean(),
  message: text,
  timestamp: optionalText,
  organization_id: optionalText,
  api_key_info: apiKeyInfoSchema.nullish(),
});

export const organizationQuotaSchema = z.object({
  total_usage: optionalNumber,
  total_quota: optionalNumber,
  current_usage: optionalNumber,
  max_api_requests: optionalNumber,
  allocated_api_key_quota: optionalNumber,
  available_api_key_quota: optionalNumber,
  source: optionalText,
  unlimited: z.boolean().nullish(),
});

const count = z.number().int().nonnegative();

/** A team gateway's additive /account field; anything else there is ignored, never an error. */
export const gatewayAccountSchema = z.object({
  analyst: z.object({ used_today: count, daily_budget: count.nullable(), day: z.string() }),
  team: z.object({
    used: count,
    limit: count.nullable(),
    reserve_percent: z.number().min(0).max(100),
    allowed: count.nullable(),
    reserve_reached: z.boolean(),
  }),
});

export const accountSchema = z.object({
  counts_toward_quota: z.boolean().nullish(),
  request_cost: optionalNumber,
  organization_id: optionalText,
  api_key: apiKeyInfoSchema,
  organization_quota: organizationQuotaSchema.nullish(),
  gateway: z.unknown().optional(),
});

export const subnetLookupSchema = z.object({
  cidr: optionalText,
  network: optionalText,
  broadcast: optionalText,
  total_ips: optionalNumber,
  results: z.array(bulkDataSchema.extend({ ip: z.string() })),
  summary: z
    .object({
      total: optionalNumber,
      malicious: optionalNumber,
      clean: optionalNumber,
      average_score: optionalNumber,
      found_count: optionalNumber,
    })
    .nullish(),
});

export type WireSingleLookup = z.infer<typeof singleLookupSchema>;
export type WireDetails = z.infer<typeof detailsSchema>;
export type WireBulkData = z.infer<typeof bulkDataSchema>;
export type WireBulkResult = z.infer<typeof bulkResultSchema>;
export type WireApiKeyInfo = z.infer<typeof apiKeyInfoSchema>;
export type WireTestKey = z.infer<typeof testKeySchema>;
export type WireAccount = z.infer<typeof accountSchema>;
export type WireSubnetLookup = z.infer<typeof subnetLookupSchema>;
