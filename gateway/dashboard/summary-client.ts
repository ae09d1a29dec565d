/**
 * Reads the dashboard's summary with the admin token (kept in this page's memory only: a reload
 * asks again, nothing is written to storage) and checks it with the gateway's own schema.
 */
import { errorSchema, summarySchema, type Summary } from '../src/dashboard/summary-schema';

export type SummaryResult = { ok: true; summary: Summary } | { ok: false; status: number; message: string };

export async function fetchSummary(token: string, days: number, fetchImpl: typeof fetch = fetch): Promise<SummaryResult> {
  let response: Response;
  try {
    response = await fetchImpl(`/dashboard/api/summary?days=${days}`, { headers: { Authorization: `Bearer ${token}` }, cache: 'no-store', credentials: 'omit' });
  } catch {
    return { ok: false, status: 0, message: 'The gateway cannot be reached.' };
  }
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const error = errorSchema.safeParse(body);
    return { ok: false, status: response.status, message: error.success ? error.data.message : `The gateway answered ${response.status}.` };
  }
  const parsed = summarySchema.safeParse(body);
  if (!parsed.success) return { ok: false, status: response.status, message: "The gateway's answer is not what this page expects (is the page older than the gateway? reload it)." };
  return { ok: true, summary: parsed.data };
}
