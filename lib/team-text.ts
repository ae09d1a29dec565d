/**
 * What a person reads about a team gateway's answer: where it came from ("From your team's
 * cache, 3 h old" / "Looked up now") and who on the team looked the IP up before ("Seen by 4
 * analysts on your team · first 2 days ago · last 10 min ago" / "New to your team"). Pure:
 * the card, the popup and the exports share it. Names come from the gateway's operator and
 * are shown as text only.
 */
import type { GatewayProvenance, TeamSightings } from './api/types';
import { parseIso } from './format';

/** `45 s`, `10 min`, `3 h`, `2 days`: the short durations analysts read at a glance. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)} h`;
  const days = Math.floor(s / 86_400);
  return `${days} days`;
}

/** How old the answer is now: its age at the gateway plus the time since it reached us. */
export function answerAgeMs(gateway: GatewayProvenance, fetchedAt: number, now: number): number {
  return gateway.ageMs + Math.max(0, now - fetchedAt);
}

/** Under this, an answer the gateway bought for us reads "Looked up now". */
const NOW_MS = 60_000;

export function provenanceText(gateway: GatewayProvenance, fetchedAt: number, now: number): string {
  const age = answerAgeMs(gateway, fetchedAt, now);
  if (gateway.cache === 'hit') return `From your team's cache, ${formatDuration(age)} old`;
  return age < NOW_MS ? 'Looked up now' : `Looked up ${formatDuration(age)} ago`;
}

function ago(iso: string | null, now: number): string | null {
  const ms = parseIso(iso);
  if (ms === null) return null;
  const diff = now - ms;
  return diff < NOW_MS ? 'just now' : `${formatDuration(diff)} ago`;
}

export function sightingsText(sightings: TeamSightings, now: number): string {
  if (sightings.newToTeam || sightings.count === 0) return 'New to your team';
  const who = sightings.count === 1 ? '1 analyst' : `${sightings.count} analysts`;
  const parts = [`Seen by ${who} on your team${sightings.byYou ? ' (you included)' : ''}`];
  if (sightings.names?.length) parts[0] += `: ${sightings.names.join(', ')}`;
  const first = ago(sightings.firstSeen, now);
  const last = ago(sightings.lastSeen, now);
  if (first && first !== last) parts.push(`first ${first}`);
  if (last) parts.push(`last ${last}`);
  return parts.join(' · ');
}

/** The popup column's short cell: `New`, `4 analysts`; empty without sightings. */
export function sightingsCell(sightings: TeamSightings | null | undefined): string {
  if (!sightings) return '—';
  if (sightings.newToTeam || sightings.count === 0) return 'New';
  return sightings.count === 1 ? '1 analyst' : `${sightings.count} analysts`;
}
