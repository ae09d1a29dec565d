/**
 * The per-page cap on automatic lookups: a log view with ten thousand distinct IPs must not
 * spend ten thousand quota units because someone opened it. Each page (tab + frame +
 * document) may send at most `max` distinct IPs to the API automatically; IPs the cache
 * answers are free and not counted. The count lives in memory: a restarted worker starts
 * again from zero for pages already open, which costs at most one more cap's worth.
 */
import { MemoryLru } from './memory-lru';

/** Pages remembered at once; the least recently active ones are forgotten first. */
const MAX_PAGES = 500;

export class PageCap {
  private readonly pages = new MemoryLru<string, Set<string>>(MAX_PAGES);

  constructor(private max: number) {}

  setMax(max: number): void {
    this.max = max;
  }

  /** Splits `ips` into those this page may still send and those over its cap. */
  admit(source: string, ips: readonly string[]): { admitted: string[]; capped: string[] } {
    let sent = this.pages.get(source);
    if (!sent) {
      sent = new Set();
      this.pages.set(source, sent);
    }
    const admitted: string[] = [];
    const capped: string[] = [];
    for (const ip of ips) {
      if (sent.has(ip)) admitted.push(ip); // already counted: asking again costs the page nothing
      else if (sent.size < this.max) {
        sent.add(ip);
        admitted.push(ip);
      } else capped.push(ip);
    }
    return { admitted, capped };
  }

  /** IPs counted for a page (status, tests). */
  countOf(source: string): number {
    return this.pages.peek(source)?.size ?? 0;
  }
}
