/**
 * Validates an answer against its schema; a mismatch is a `bad-response` naming the first
 * wrong field, so "the server changed" is diagnosable from the error line alone.
 */
import type { z } from 'zod';
import { ApiError } from './errors';

export function parseAnswer<S extends z.ZodType>(schema: S, json: unknown, endpoint: string, status?: number): z.output<S> {
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'answer';
  throw new ApiError({
    kind: 'bad-response',
    message: `Unexpected answer from ${endpoint}: ${where}: ${issue?.message ?? 'invalid'}.`,
    ...(status !== undefined ? { status } : {}),
  });
}
