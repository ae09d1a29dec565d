/**
 * The IPs that failed because the bulk endpoint did: when its circuit turns half-open and no page
 * is asking, one of them is the probe (an answer a page is waiting for, at most one unit).
 *
 * They outlive the worker (storage.session in the extension): MV3 stops an idle worker during the
 * minutes a circuit may stay open, and a successor that knew no candidate would never send the
 * probe, so recovery would never be proven and the pages' failed marks would stay failed.
 */
import { loadOrNothing, type StoredValue } from './stored-value';

const STORED_VERSION = 1;
/** Enough for the probe and a few spares; a page's other failed IPs are re-asked on recovery. */
export const MAX_PROBE_CANDIDATES = 200;

export class ProbeCandidates {
  /** Insertion order: the oldest is dropped first, the newest noted last. */
  private readonly ips = new Set<string>();
  private restored: Promise<void> | null = null;
  /** Something changed in this run: what an earlier run stored is older. */
  private changed = false;
  private saveQueued = false;
  private saving: Promise<void> = Promise.resolve();

  constructor(private readonly store?: StoredValue) {}

  /** Takes up what a stopped worker stored. Never rejects. */
  restore(): Promise<void> {
    this.restored ??= (async () => {
      const raw = await loadOrNothing(this.store);
      if (this.changed || typeof raw !== 'object' || raw === null) return;
      const value = raw as { v?: unknown; ips?: unknown };
      if (value.v !== STORED_VERSION || !Array.isArray(value.ips)) return;
      for (const ip of value.ips.slice(-MAX_PROBE_CANDIDATES)) {
        // Canonical IPs only ever went in; anything else was not written by us.
        if (typeof ip === 'string' && ip.length <= 45) this.ips.add(ip);
      }
    })();
    return this.restored;
  }

  /** Resolves when every write so far has landed. */
  flush(): Promise<void> {
    return this.saving;
  }

  note(ip: string): void {
    this.ips.delete(ip);
    this.ips.add(ip);
    if (this.ips.size > MAX_PROBE_CANDIDATES) {
      const oldest = this.ips.values().next().value;
      if (oldest !== undefined) this.ips.delete(oldest);
    }
    this.save();
  }

  delete(ip: string): void {
    if (this.ips.delete(ip)) this.save();
  }

  clear(): void {
    if (!this.ips.size) return;
    this.ips.clear();
    this.save();
  }

  [Symbol.iterator](): IterableIterator<string> {
    return this.ips.values();
  }

  /** One write per burst (a failed call notes up to 100 IPs at once), of the set when it starts. */
  private save(): void {
    this.changed = true;
    const store = this.store;
    if (!store || this.saveQueued) return;
    this.saveQueued = true;
    this.saving = this.saving
      .then(() => new Promise<void>((resolve) => queueMicrotask(resolve)))
      .then(() => {
        this.saveQueued = false;
        return store.save({ v: STORED_VERSION, ips: [...this.ips] });
      })
      .catch(() => undefined);
  }
}
