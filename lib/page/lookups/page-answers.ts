/**
 * What a page knows of each IP it shows: the lookup queue's answers, each address's class
 * (public, private, CGNAT…) and, from both and the analyst's settings, the severity its marks
 * show and whether it may be asked at all. PageLens wires it to the marks; the card and the
 * popup's page list read it through PageLens.
 */
import type { IpClass } from '../../ip/types';
import type { LookupResult } from '../../lookup/types';
import { severityOf as severityOfResult, type Severity, type SeverityThresholds } from '../../severity';
import { compactMap } from '../occurrences/set-map';
import { lookupQueue, type LookupQueue, type LookupQueueOptions, type PagePriority } from './lookup-queue';

export interface AskPolicy {
  thresholds: SeverityThresholds;
  /** Private and reserved addresses are sent only when this is on. */
  sendPrivate: boolean;
}

/** Answers and address classes kept for IPs no longer on the page, at most. */
const MAX_FORGOTTEN_IPS = 5_000;

export interface PageAnswers {
  readonly queue: LookupQueue;
  /** Private and reserved addresses are never sent unless the analyst asked for it. */
  shouldAsk(ip: string): boolean;
  /** Asks for the IPs that may be asked (the others keep their "Not looked up" mark). */
  ask(ips: Iterable<string>, priority: PagePriority): void;
  /** The severity a mark shows: its answer's, else pending while it may be asked, else skipped. */
  severityOf(ip: string): Severity;
  /** The severity of an IP's answer; 'pending' while it has none (whatever its class). */
  answeredSeverityOf(ip: string): Severity;
  /** The answer, or why a private or reserved address was not sent; undefined while unknown. */
  resultOf(ip: string): LookupResult | undefined;
  /** Keeps what is known of IPs that left the page only up to a bound above those on it. */
  prune(isOnPage: (ip: string) => boolean, ipsOnPage: number): void;
  /**
   * Once the page is quiet: forgets the classes of IPs no longer on it and resizes the maps,
   * whose tables stayed sized for a storm's peak (V8 only shrinks a Map below a quarter full).
   * Answers stay up to prune's bound: an IP that comes back keeps its colour instead of
   * showing "pending" until it is asked again.
   */
  compact(isOnPage: (ip: string) => boolean): void;
  /** IPs this page keeps an answer or a class for (bounded on pages that change forever). */
  readonly remembered: number;
}

/** A closure, not a class: its state's names are minified in the content script. */
export function pageAnswers(classify: (ip: string) => IpClass, policy: () => AskPolicy, options: LookupQueueOptions): PageAnswers {
  const queue = lookupQueue(options);
  let classes = new Map<string, IpClass>();

  const classOf = (ip: string): IpClass => {
    let cls = classes.get(ip);
    if (cls === undefined) {
      cls = classify(ip);
      classes.set(ip, cls);
    }
    return cls;
  };
  const shouldAsk = (ip: string): boolean => policy().sendPrivate || classOf(ip) === 'public';
  const forgetClassesOffPage = (isOnPage: (ip: string) => boolean): void => {
    for (const ip of classes.keys()) if (!isOnPage(ip)) classes.delete(ip);
  };
  const answeredSeverityOf = (ip: string): Severity => {
    const result = queue.resultOf(ip);
    return result ? severityOfResult(result, policy().thresholds) : 'pending';
  };

  return {
    queue,
    shouldAsk,
    ask(ips, priority) {
      queue.request([...ips].filter(shouldAsk), priority);
    },
    severityOf(ip) {
      const result = queue.resultOf(ip);
      if (result) return severityOfResult(result, policy().thresholds);
      return shouldAsk(ip) ? 'pending' : 'skipped';
    },
    answeredSeverityOf,
    resultOf(ip) {
      const result = queue.resultOf(ip);
      if (result) return result;
      const cls = classOf(ip);
      if (!shouldAsk(ip) && cls !== 'public') return { ip, status: 'skipped', reason: cls };
      return undefined;
    },
    prune(isOnPage, ipsOnPage) {
      const max = ipsOnPage + MAX_FORGOTTEN_IPS;
      queue.prune(isOnPage, max);
      if (classes.size > max) forgetClassesOffPage(isOnPage);
    },
    compact(isOnPage) {
      queue.compact();
      forgetClassesOffPage(isOnPage);
      classes = compactMap(classes);
    },
    get remembered() {
      return Math.max(queue.size, classes.size);
    },
  };
}
