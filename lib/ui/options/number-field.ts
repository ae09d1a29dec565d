/**
 * Number inputs as the user types them: the text is parsed against the setting's zod schema
 * and a wrong value gets a sentence that says what would be right ("a whole number from 1 to
 * 100,000"), not zod's "Too small: expected number to be >=1".
 */
import type { z } from 'zod';

export type FieldResult<T> = { ok: true; value: T } | { ok: false; message: string };

function range(schema: z.ZodNumber): string {
  const min = schema.minValue;
  const max = schema.maxValue;
  const fmt = (n: number) => n.toLocaleString('en-US');
  const kind = schema.isInt ? 'a whole number' : 'a number';
  if (min !== null && Number.isFinite(min) && max !== null && Number.isFinite(max) && max < Number.MAX_SAFE_INTEGER) {
    return `${kind} from ${fmt(min)} to ${fmt(max)}`;
  }
  if (min !== null && Number.isFinite(min) && min > Number.MIN_SAFE_INTEGER) return `${kind} of at least ${fmt(min)}`;
  return kind;
}

/**
 * Every number field of a section's draft against its object schema's shape: the values that
 * parse, and a message for each field that does not.
 */
export function parseNumberFields<F extends string>(
  draft: Record<F, string>,
  fields: readonly F[],
  shape: Record<F, unknown>,
): { value: Partial<Record<F, number>>; errors: Partial<Record<F, string>> } {
  const value: Partial<Record<F, number>> = {};
  const errors: Partial<Record<F, string>> = {};
  for (const field of fields) {
    // A field with a default (for settings stored before it existed) is checked as its number.
    const field_ = shape[field] as { removeDefault?: () => unknown };
    const schema = (typeof field_.removeDefault === 'function' ? field_.removeDefault() : field_) as z.ZodNumber;
    const parsed = parseNumberField(draft[field], schema);
    if (parsed.ok) value[field] = parsed.value;
    else errors[field] = parsed.message;
  }
  return { value, errors };
}

export function parseNumberField(text: string, schema: z.ZodNumber): FieldResult<number> {
  const trimmed = text.trim();
  if (!trimmed) return { ok: false, message: `Enter ${range(schema)}.` };
  // Number('') is 0 and Number('1e3') is 1000: accept plain decimals only.
  if (!/^-?\d+(\.\d+)?$/.test(trimmed)) return { ok: false, message: `"${trimmed.slice(0, 20)}" is not a number. Enter ${range(schema)}.` };
  const value = Number(trimmed);
  const parsed = schema.safeParse(value);
  if (!parsed.success) return { ok: false, message: `Enter ${range(schema)}.` };
  return { ok: true, value: parsed.data };
}
