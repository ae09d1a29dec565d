/**
 * Team sightings at the gateway's edge: what a request's answers say about who on the team
 * looked their IPs up before, and what the request itself adds.
 *
 * The privacy rule: a sighting is recorded only for an IP the analyst asked for (the popup, a
 * pasted list, the card's "look up" or details), which the extension says per IP in the
 * request (`asked` in a bulk body, `asked=true` on checkIP). IPs merely present on a page are
 * answered, and carry the summary, but are not recorded unless the operator turns that on
 * (GATEWAY_SIGHTINGS_PAGE_IPS). Names leave only when the operator turns them on.
 *
 * Reads ride in the answers' read (one MGET on one Redis node); writes go after the answer,
 * off its path, and a closing gateway waits for them.
 */
import type { Logger } from 'pino';
import type { SightingSettings } from './config';
import { summarizeSightings, type SightingSummary, type Sightings } from './store/sightings';
import type { Store, StoredAnswer } from './store/types';

export interface SightedRead {
  answers: Map<string, StoredAnswer>;
  sightings: Map<string, Sightings>;
}

export class TeamSightings {
  private readonly writes = new Set<Promise<void>>();

  constructor(
    private readonly settings: SightingSettings,
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  get enabled(): boolean {
    return this.settings.retentionMs > 0;
  }

  /** The stored answers of `ips` and, when sightings are on, their records, in one read. */
  read(ips: readonly string[]): Promise<SightedRead> {
    if (!this.enabled) return this.store.getAnswers(ips).then((answers) => ({ answers, sightings: new Map() }));
    return this.store.getAnswersAndSightings(ips);
  }

  /** What an answer says about `ip`'s sightings (null: sightings off). */
  summaryOf(ip: string, read: SightedRead | undefined, analyst: string): SightingSummary | null {
    if (!this.enabled) return null;
    return summarizeSightings(read?.sightings.get(ip) ?? null, { cutoff: this.now() - this.settings.retentionMs, analyst, names: this.settings.names });
  }

  /**
   * Records `analyst`'s lookup of `answered` IPs: those in `asked`, or all of them when the
   * operator counts page IPs too. Not awaited by the answer.
   */
  record(analyst: string, answered: readonly string[], asked: ReadonlySet<string>): void {
    if (!this.enabled) return;
    const ips = this.settings.pageIps ? answered : answered.filter((ip) => asked.has(ip));
    if (!ips.length) return;
    const at = this.now();
    const write = this.store
      .recordSightings(
        ips.map((ip) => ({ ip, analyst, at })),
        at - this.settings.retentionMs,
        this.settings.retentionMs,
      )
      .catch((error: unknown) => {
        // A lost sighting costs the team a line of context, never the analyst's answer.
        this.logger.warn({ err: { message: error instanceof Error ? error.message : String(error) } }, 'sightings not recorded');
      })
      .finally(() => this.writes.delete(write));
    this.writes.add(write);
  }

  /** Waits for the writes in flight (before the store closes). */
  async drain(): Promise<void> {
    await Promise.all([...this.writes]);
  }
}
