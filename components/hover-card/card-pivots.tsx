/**
 * "Open in …" under a card's buttons: one button per service the analyst turned on. The card
 * knows names only; the background builds each URL and opens the tab (lib/background/
 * pivot-handlers.ts), so the page never sees where a link goes. The O key opens the first one.
 */
import type { PivotChoice } from '@/lib/pivots';

export interface CardPivotsProps {
  ip: string;
  pivots: readonly PivotChoice[];
  onPivot: (pivotId: string) => void;
}

export function CardPivots({ ip, pivots, onPivot }: CardPivotsProps) {
  if (!pivots.length) return null;
  return (
    <div class="pivots" role="group" aria-label={`Open ${ip} in`}>
      <span class="pivots-label">Open in</span>
      {pivots.map((p, i) => (
        <button
          key={p.id}
          type="button"
          class="pivot"
          title={i === 0 ? `Open ${ip} in ${p.name} in a new tab (key O)` : `Open ${ip} in ${p.name} in a new tab`}
          onClick={() => onPivot(p.id)}
        >
          {p.name}
          {i === 0 && <span class="sr-only"> (key O)</span>}
        </button>
      ))}
    </div>
  );
}
