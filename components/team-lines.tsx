/**
 * A team gateway's two lines under an answer: where it came from, and who on the team looked
 * the IP up before. Nothing for the public API's answers (they carry no provenance).
 */
import type { LookupResult } from '@/lib/lookup/types';
import { provenanceText, sightingsText } from '@/lib/team-text';
import { showBidiControls as visible } from '@/lib/visible-text';

export function TeamLines({ result, now }: { result: LookupResult; now: number }) {
  if ((result.status !== 'found' && result.status !== 'not-found') || !result.gateway) return null;
  const { gateway } = result;
  return (
    <div class="rep-team">
      <p class="rep-provenance">{provenanceText(gateway, result.fetchedAt, now)}</p>
      {gateway.sightings && <p class={`rep-sightings${gateway.sightings.newToTeam ? ' rep-new' : ''}`}>{visible(sightingsText(gateway.sightings, now))}</p>}
    </div>
  );
}
