/** The "Lookup policy" section: drafts as typed, parsed against lookupPolicySchema. */
import { ZodDefault, type z } from 'zod';
import { lookupPolicySchema, type LookupPolicy } from '../settings';
import { parseNumberField } from './number-field';
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
  const errors: Partial<Record<keyof PolicyDraft, string>> = {};
  const value: Partial<LookupPolicy> = { sendPrivate: draft.sendPrivate, automatic: draft.automatic };
  for (const field of POLICY_NUMBER_FIELDS) {
    const shape = lookupPolicySchema.shape[field];
    // A field with a default (for policies stored before it existed) is checked as its number.
    const schema = (shape instanceof ZodDefault ? shape.removeDefault() : shape) as z.ZodNumber;
    const parsed = parseNumberField(draft[field], schema);
    if (parsed.ok) value[field] = parsed.value;
    else errors[field] = parsed.message;
  }
  if (Object.keys(errors).length) return { ok: false, errors };
  const whole = lookupPolicySchema.safeParse(value);
  if (!whole.success) return { ok: false, errors: { form: whole.error.issues[0]?.message ?? 'Invalid policy.' } };
  return { ok: true, value: whole.data };
}
