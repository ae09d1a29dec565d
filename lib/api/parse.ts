/**
 * Validates an answer against its schema; a mismatch is a `bad-response` naming the first
 * wrong field, so "the server changed" is diagnosable from the error line alone.
 */
import type { z } from 'zod';
import { ApiError } from './errors';

/**
 * A schema issue in words an analyst can read: zod's own say "received undefined" or "received
 * null", words that must never reach the screen (they read as a bug, not as "the server sent
 * something else").
 */
export function describeIssue(issue: z.core.$ZodIssue | undefined, fallbackWhere: string): string {
  const where = issue?.path.length ? issue.path.join('.') : fallbackWhere;
  const message = (issue?.message ?? 'not in the expected shape')
    .replace(/^Invalid input: /, '')
    .replace(/\breceived undefined\b/g, 'but it is missing')
    .replace(/\breceived null\b/g, 'but it is empty')
    .replace(/\breceived NaN\b/g, 'but it is not a number')
    .replace(/\b(undefined|null|NaN)\b/g, 'nothing');
  return `${where}: ${message}`;
}

export function parseAnswer<S extends z.ZodType>(schema: S, json: unknown, endpoint: string, status?: number): z.output<S> {
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  throw new ApiError({
    kind: 'bad-response',
    message: `Unexpected answer from ${endpoint}: ${describeIssue(result.error.issues[0], 'answer')}.`,
    ...(status !== undefined ? { status } : {}),
  });
}
