/**
 * The simulator's per-IP request log: which IPs each lookup request asked about, and when a
 * 2xx answer about them went out. It answers the question "was an IP asked again after the
 * server had already answered it?", which is what the extension must never do (each answer
 * may be paid for). An answer counts as given once the response was handed to the socket
 * ('finish'); a response to a client that went away first was never given.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface IpAsk {
  ip: string;
  path: string;
  /** Order of the request's arrival among all events of the log. */
  askedAt: number;
  /** Wall-clock ms of the arrival (benchmarks: when each IP first reached the server). */
  arrivedAtMs: number;
  /** Order of the moment a 2xx answer went out, or null (an error, or the client left first). */
  answered2xxAt: number | null;
}

/** The IPs a lookup request asks about: checkIP's `ip`, bulk's `ips`; none for the rest. */
export function ipsOfRequest(path: string, query: URLSearchParams, body: unknown): string[] {
  if (path === '/checkIP') {
    const ip = query.get('ip');
    return ip ? [ip] : [];
  }
  if (path === '/checkIP/bulk') {
    const ips = body && typeof body === 'object' && !Array.isArray(body) ? (body as { ips?: unknown }).ips : undefined;
    return Array.isArray(ips) ? ips.filter((ip): ip is string => typeof ip === 'string') : [];
  }
  return [];
}

export class IpLog {
  private asks: IpAsk[] = [];
  /** Events are ordered by a counter, not the clock: two can share a millisecond. */
  private seq = 0;
  private readonly now = () => ++this.seq;

  /** A request arrived; returns its entries so the answer can be noted on them. */
  asked(path: string, ips: readonly string[]): IpAsk[] {
    const at = this.now();
    const arrivedAtMs = Date.now();
    const entries = ips.map((ip) => ({ ip, path, askedAt: at, arrivedAtMs, answered2xxAt: null }));
    this.asks.push(...entries);
    return entries;
  }

  /** The request got `status`; a 2xx counts once the response has gone out. */
  answered(entries: IpAsk[], status: number, res?: ServerResponse<IncomingMessage>): void {
    if (status < 200 || status > 299 || !entries.length) return;
    const mark = () => {
      const at = this.now();
      for (const entry of entries) entry.answered2xxAt = at;
    };
    if (res) res.once('finish', mark);
    else mark();
  }

  /** Every ask, oldest first. */
  all(): readonly IpAsk[] {
    return this.asks;
  }

  /** Asks of an IP that arrived after a 2xx answer about it had gone out: each one paid again. */
  resentAfter2xx(): IpAsk[] {
    const firstAnswer = new Map<string, IpAsk>();
    for (const ask of this.asks) {
      if (ask.answered2xxAt === null) continue;
      const known = firstAnswer.get(ask.ip);
      if (!known || ask.answered2xxAt < known.answered2xxAt!) firstAnswer.set(ask.ip, ask);
    }
    return this.asks.filter((ask) => {
      const first = firstAnswer.get(ask.ip);
      return first !== undefined && ask !== first && ask.askedAt > first.answered2xxAt!;
    });
  }

  reset(): void {
    this.asks = [];
  }
}
