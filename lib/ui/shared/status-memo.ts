/**
 * The last status the popup saw, kept in the extension's localStorage (synchronous), so the
 * next popup draws its quota meter at once and corrects it when the background answers
 * (stale-while-revalidate). The snapshot carries its own "Updated … ago" time, so it never
 * pretends to be fresher than it is.
 */
import type { LookupStatus } from '../../lookup/types';

const KEY = 'iplens:last-status';

export interface StatusMemo {
  recall(): LookupStatus | null;
  remember(status: LookupStatus): void;
}

function isStatus(value: unknown): value is LookupStatus {
  const v = value as LookupStatus | null;
  return !!v && typeof v === 'object' && !!v.quota && typeof v.quota.state === 'string' && typeof v.cacheSize === 'number';
}

export function localStatusMemo(storage: Pick<Storage, 'getItem' | 'setItem'> | undefined = globalThis.localStorage): StatusMemo {
  return {
    recall() {
      try {
        const parsed: unknown = JSON.parse(storage?.getItem(KEY) ?? 'null');
        // A pause or an error from an earlier popup is history, not the current state.
        return isStatus(parsed) ? { ...parsed, pausedUntil: null, queueLength: 0, inFlight: 0 } : null;
      } catch {
        return null;
      }
    },
    remember(status) {
      try {
        storage?.setItem(KEY, JSON.stringify(status));
      } catch {
        // Storage full or disabled: the popup just waits for the background next time.
      }
    },
  };
}
