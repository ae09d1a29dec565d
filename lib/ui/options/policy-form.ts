/** The "Lookup policy" section: drafts as typed, parsed against lookupPolicySchema. */
import { lookupPolicySchema, type LookupPolicy } from '../../settings';
import { parseNumberFields } from './number-field';
import type { ParseResult } from './section-form';

export const POLICY_NUMBER_FIELDS = [
  'perPageCap',
  'siteDailyCap',
  'reservePercent',
  'ttlFoundMinutes',
  'ttlNotFoundMinutes',
  'ttlDetailedMinutes',
  'cacheMaxEntries',
] as const satisfies readonly (keyof LookupPolicy)[];
type NumberField = (typeof POLICY_NUMBER_FIELDS)[number];

export type PolicyDraft = { sendPrivate: boolean; automatic: boolean } & Record<NumberField, string>;

export function policyToDraft(p: LookupPolicy): PolicyDraft {
  return {
    sendPrivate: p.sendPrivate,
    automatic: p.automatic,
    ...(Object.fromEntries(POLICY_NUMBER_FIELDS.map((f) => [f, String(p[f])])) as Record<NumberField, string>),
  };
}

export function parsePolicyDraft(draft: PolicyDraft): ParseResult<PolicyDraft, LookupPolicy> {
  const { value: numbers, errors } = parseNumberFields(draft, POLICY_NUMBER_FIELDS, lookupPolicySchema.shape);
  const value: Partial<LookupPolicy> = { sendPrivate: draft.sendPrivate, automatic: draft.automatic, ...numbers };
  if (Object.keys(errors).length) return { ok: false, errors };
  const whole = lookupPolicySchema.safeParse(value);
  if (!whole.success) return { ok: false, errors: { form: whole.error.issues[0]?.message ?? 'Invalid policy.' } };
  return { ok: true, value: whole.data };
}
