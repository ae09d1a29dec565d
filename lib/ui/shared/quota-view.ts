/**
 * What the quota meter says: used / limit, where the reserve starts, and what the state means
 * for automatic lookups (the reason an analyst sees grey "not looked up" marks on a page).
 */
import { formatAbsolute, formatCount, formatRelative } from '../../format';
import type { QuotaSnapshot, QuotaState } from '../../lookup/types';
import type { ApiErrorData } from '../../api/errors';
import type { TeamQuota } from '../../api/types';
import { ERROR_TEXT } from './error-messages';
import { isoOrNull } from './export-rows';

export const QUOTA_TEXT: Record<QuotaState, { label: string; meaning: string }> = {
  ok: {
    label: 'OK',
    meaning: 'Automatic lookups run on scanned pages.',
  },
  low: {
    label: 'Running low',
    meaning: 'Automatic lookups still run, but the reserve is close. Manual lookups always may use it.',
  },
  'reserve-reached': {
    label: 'Reserve reached',
    meaning: 'Automatic lookups are paused to keep the reserve for your manual lookups.',
  },
  exhausted: {
    label: 'Exhausted',
    meaning: 'The usage limit is reached: no lookups, automatic or manual, until the period resets.',
  },
  unknown: {
    label: 'Unknown',
    meaning: 'Usage has not been read from the server yet. Automatic lookups run; refresh to check.',
  },
};

export interface QuotaView {
  /** `failing`: the quota would allow lookups, but they fail (server down, key rejected…). */
  state: QuotaState | 'failing';
  label: string;
  meaning: string;
  /** "123 of 1,000 used", "123 used (no limit)" or "Usage unknown". */
  usage: string;
  /** 0-100, or null when there is no limit to compare with. */
  usedPercent: number | null;
  /** Where the reserve starts on the bar (0-100 from the left), or null. */
  reserveAt: number | null;
  reserveText: string | null;
  /** Which limit applies: the key's own or the organisation's pool; null when not known yet. */
  scopeText: string | null;
  /** "Updated 2 minutes ago (2025-01-01 12:00:00 UTC)" or "Never updated". */
  refreshed: string;
  detail: string | null;
  /** Through a team gateway: one line for the analyst's budget, one for the team's pool. */
  team: { budget: string; pool: string } | null;
}

/** The team's reserve is reached: the gateway buys nothing new, for anyone. */
export const TEAM_RESERVE_TEXT = {
  label: 'Team reserve reached',
  meaning: "The team's quota is down to its reserve: the gateway stops automatic lookups (it buys no new answers for anyone). Answers already in the team's cache still come.",
} as const;

/** The analyst's and the team's lines of the meter, from the gateway's /account fields. */
export function teamLines(team: TeamQuota): { budget: string; pool: string } {
  const { analyst, team: pool } = team;
  const budget =
    analyst.dailyBudget === null
      ? `Your budget: none of your own (${formatCount(analyst.usedToday)} units today)`
      : `Your budget: ${formatCount(analyst.usedToday)} of ${formatCount(analyst.dailyBudget)} units today${analyst.usedToday >= analyst.dailyBudget ? ' (spent: the gateway refuses your new lookups until 00:00 UTC)' : ''}`;
  const poolText =
    pool.limit === null
      ? `Team pool: ${formatCount(pool.used)} used (no limit)`
      : `Team pool: ${formatCount(pool.used)} of ${formatCount(pool.limit)} used, reserve ${formatCount(pool.reservePercent)}%${pool.allowed === null ? '' : ` (automatic lookups stop at ${formatCount(pool.allowed)})`}`;
  return { budget, pool: poolText };
}

function clampPercent(value: number): number {
  return Math.min(100, Math.max(0, value));
}

/** States in which the meter would say lookups run: a current failure must override them. */
const RUNNING_STATES: ReadonlySet<QuotaState> = new Set(['ok', 'low', 'unknown']);

/**
 * `failure`: the background's current API failure (lastError, cleared when calls succeed
 * again). With one, the meter never says "OK": lookups are not running, whatever the quota.
 */
export function quotaView(q: QuotaSnapshot, now: number, failure?: ApiErrorData | null): QuotaView {
  const failing = !!failure && failure.kind !== 'quota-exhausted' && RUNNING_STATES.has(q.state);
  // The gateway's reserve stops purchases whatever this analyst's own budget says.
  const teamReserve = !failing && !!q.team?.team.reserveReached && RUNNING_STATES.has(q.state);
  const text = teamReserve
    ? TEAM_RESERVE_TEXT
    : failing
    ? {
        label: 'Lookups failing',
        meaning: `Lookups are failing (${(ERROR_TEXT[failure.kind] ?? ERROR_TEXT.internal).title.toLowerCase()}), not for lack of quota. Failed IPs are asked again when the server answers.`,
      }
    : (QUOTA_TEXT[q.state] ?? QUOTA_TEXT.unknown);
  const hasLimit = !q.unlimited && typeof q.limit === 'number' && q.limit > 0;
  const used = typeof q.used === 'number' ? q.used : null;
  let usage: string;
  if (used === null) usage = 'Usage unknown';
  else if (hasLimit) usage = `${formatCount(used)} of ${formatCount(q.limit)} used`;
  else usage = `${formatCount(used)} used (no limit)`;

  const usedPercent = hasLimit && used !== null ? clampPercent((used / q.limit!) * 100) : null;
  const reserveAt =
    hasLimit && typeof q.reserve === 'number' && q.reserve > 0 ? clampPercent(((q.limit! - q.reserve) / q.limit!) * 100) : null;
  const reserveText =
    reserveAt !== null ? `Reserve: the last ${formatCount(q.reserve)} requests are kept for manual lookups.` : null;

  const scopeText =
    q.scope === 'key'
      ? "Limit: this key's own."
      : q.scope === 'organization'
        ? q.unlimited
          ? "Limit: none (the organisation's pool is unlimited)."
          : "Limit: the organisation's pool, shared with its other keys (this key has no limit of its own)."
        : null;

  const iso = isoOrNull(q.refreshedAt);
  const relative = formatRelative(iso, now);
  const refreshed = relative ? `Updated ${relative} (${formatAbsolute(iso)})` : 'Never updated';
  return {
    state: failing ? 'failing' : teamReserve ? 'reserve-reached' : q.state,
    ...text,
    usage,
    usedPercent,
    reserveAt,
    reserveText,
    scopeText,
    refreshed,
    detail: q.detail,
    team: q.team ? teamLines(q.team) : null,
  };
}
