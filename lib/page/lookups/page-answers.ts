/**
 * What a page knows of each IP it shows: the lookup queue's answers, each address's class
 * (public, private, CGNAT…) and, from both and the analyst's settings, the severity its marks
 * show and whether it may be asked at all. PageLens wires it to the marks; the card and the
 * popup's page list read it through PageLens.
 */
import type { IpClass } from '../../ip/types';
import type { LookupResult } from '../../lookup/types';
import { severityOf, type Severity, type SeverityThresholds } from '../../severity';
import { compactMap } from '../occurrences/set-map';
import { LookupQueue, type LookupQueueOptions, type PagePriority } from './lookup-queue';

export interface AskPolicy {
  thresholds: SeverityThresholds;
  /** Private and reserved addresses are sent only when this is on. */
  sendPrivate: boolean;
}

/** Answers and address classes kept for IPs no longer on the page, at most. */
const MAX_FORGOTTEN_IPS = 5_000;

export class PageAnswers {
  readonly queue: LookupQueue;
  private classes = new Map<string, IpClass>();

  constructor(
    private readonly classify: (ip: string) => IpClass,
    private readonly policy: () => AskPolicy,
    queue: LookupQueueOptions,
  ) {
    this.queue = new LookupQueue(queue);
  }

  /** Private and reserved addresses are never sent unless the analyst asked for it. */
  shouldAsk(ip: string): boolean {
    return this.policy().sendPrivate || this.classOf(ip) === 'public';
  }

  /** Asks for the IPs that may be asked (the others keep their "Not looked up" mark). */
  ask(ips: Iterable<string>, priority: PagePriority): void {
    this.queue.request([...ips].filter((ip) => this.shouldAsk(ip)), priority);
  }

  /** The severity a mark shows: its answer's, else pending while it may be asked, else skipped. */
  severityOf(ip: string): Severity {
    const result = this.queue.resultOf(ip);
    if (result) return severityOf(result, this.policy().thresholds);
    return this.shouldAsk(ip) ? 'pending' : 'skipped';
  }

  /** The severity of an IP's answer; 'pending' while it has none (whatever its class). */
  answeredSeverityOf(ip: string): Severity {
    const result = this.queue.resultOf(ip);
    return result ? severityOf(result, this.policy().thresholds) : 'pending';
  }

  /** The answer, or why a private or reserved address was not sent; undefined while unknown. */
  resultOf(ip: string): LookupResult | undefined {
    const result = this.queue.resultOf(ip);
    if (result) return result;
    const cls = this.classOf(ip);
    if (!this.shouldAsk(ip) && cls !== 'public') return { ip, status: 'skipped', reason: cls };
    return undefined;
  }

  /** Keeps what is known of IPs that left the page only up to a bound above those on it. */
  prune(isOnPage: (ip: string) => boolean, ipsOnPage: number): void {
    const max = ipsOnPage + MAX_FORGOTTEN_IPS;
    this.queue.prune(isOnPage, max);
    if (this.classes.size > max) this.forgetClassesOffPage(isOnPage);
  }

  /**
   * Once the page is quiet: forgets the classes of IPs no longer on it and resizes the maps,
   * whose tables stayed sized for a storm's peak (V8 only shrinks a Map below a quarter full).
   * Answers stay up to prune's bound: an IP that comes back keeps its colour instead of
   * showing "pending" until it is asked again.
   */
  compact(isOnPage: (ip: string) => boolean): void {
    this.queue.compact();
    this.forgetClassesOffPage(isOnPage);
    this.classes = compactMap(this.classes);
  }

  /** IPs this page keeps an answer or a class for (bounded on pages that change forever). */
  get remembered(): number {
    return Math.max(this.queue.size, this.classes.size);
  }

  private classOf(ip: string): IpClass {
    let cls = this.classes.get(ip);
    if (cls === undefined) {
      cls = this.classify(ip);
      this.classes.set(ip, cls);
    }
    return cls;
  }

  private forgetClassesOffPage(isOnPage: (ip: string) => boolean): void {
    for (const ip of this.classes.keys()) if (!isOnPage(ip)) this.classes.delete(ip);
  }
}
