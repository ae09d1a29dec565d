/**
 * Fault injection. Each fault is consumed by count (the next N matching requests suffer it),
 * so a test can say "two 429s then success" and assert the retries in the request log.
 * Faults hit the lookup endpoints unless a `path` (`/account`, `/checkIP/bulk`, `*`) says
 * otherwise; they apply after authentication, so auth tests are never disturbed.
 */
export interface FaultRule {
  /** How many matching requests suffer the fault. */
  count: number;
  /** Endpoint below the API prefix (`/checkIP`, `/checkIP/bulk`...), or `*` for any. */
  path?: string;
  /** Fire on every n-th matching request only (1, the default: every one), e.g. 10 for "10%". */
  every?: number;
  /** With `every`: which request of each n fires (1 = the first; default n, the last). */
  offset?: number;
}

export interface SimFaults {
  /** Delay before every API answer (all endpoints unless latencyPath). Not consumed. */
  latencyMs?: number;
  latencyPath?: string;
  /**
   * 429 `Rate limit exceeded`, with a Retry-After header when retryAfterSeconds is set (0 is
   * sent as `0`); `plainText` sends the words as text/plain instead of the JSON error body.
   */
  rateLimit?: FaultRule & { retryAfterSeconds?: number; retryAfterAsDate?: boolean; plainText?: boolean };
  /**
   * A 5xx (default 500); with `html` an HTML error page instead of the JSON error body. With
   * `afterCharge` the request is served and charged first and its answer replaced by the error:
   * a gateway that lost the answer of a call the service billed.
   */
  serverError?: FaultRule & { status?: number; html?: boolean; afterCharge?: boolean };
  /** 200 with a truncated JSON body. */
  invalidJson?: FaultRule;
  /** The socket is destroyed without an answer; with `afterCharge`, after the call was billed. */
  dropConnection?: FaultRule & { afterCharge?: boolean };
  /**
   * The service changed its answers' shape (not consumed): `rows`, every bulk row's fields take
   * new types (score an object, hits a word); `envelope`, bulk's `results` is renamed `items`
   * and checkIP's `details` is renamed `detail`.
   */
  schemaChange?: 'rows' | 'envelope';
  /** A 301/307/308 to `location` (a moved API, or a proxy sending clients elsewhere). */
  redirect?: FaultRule & { status?: 301 | 302 | 307 | 308; location: string };
}

export type ConsumableFault = 'redirect' | 'dropConnection' | 'serverError' | 'rateLimit' | 'invalidJson';

const ORDER: ConsumableFault[] = ['redirect', 'dropConnection', 'serverError', 'rateLimit', 'invalidJson'];
const LOOKUP_PATHS = new Set(['/checkIP', '/checkIP/bulk', '/checkSubnet']);

export type FiredFault =
  | { type: 'redirect'; status: number; location: string }
  | { type: 'dropConnection'; afterCharge: boolean }
  | { type: 'serverError'; status: number; html: boolean; afterCharge: boolean }
  | { type: 'rateLimit'; retryAfterSeconds?: number; retryAfterAsDate: boolean; plainText: boolean }
  | { type: 'invalidJson' };

export class FaultStore {
  private faults: SimFaults = {};
  /** Matching requests seen per fault type, for `every`. */
  private seen = new Map<ConsumableFault, number>();

  /** Merges: each fault given replaces the pending one of its type. */
  set(faults: SimFaults): void {
    this.faults = { ...this.faults, ...faults };
    for (const type of Object.keys(faults)) this.seen.delete(type as ConsumableFault);
  }

  clear(): void {
    this.faults = {};
    this.seen.clear();
  }

  current(): SimFaults {
    return structuredClone(this.faults);
  }

  latencyFor(path: string): number {
    const { latencyMs, latencyPath } = this.faults;
    if (!latencyMs || (latencyPath && latencyPath !== path)) return 0;
    return latencyMs;
  }

  /** The fault this request suffers, if any, counted off its rule. */
  consume(path: string): FiredFault | null {
    for (const type of ORDER) {
      const rule = this.faults[type];
      if (!rule || rule.count <= 0 || !matches(rule.path, path)) continue;
      const seen = (this.seen.get(type) ?? 0) + 1;
      this.seen.set(type, seen);
      const every = Math.max(1, Math.floor(rule.every ?? 1));
      if (seen % every !== Math.floor(rule.offset ?? every) % every) continue;
      rule.count -= 1;
      switch (type) {
        case 'redirect': {
          const r = this.faults.redirect!;
          return { type, status: r.status ?? 301, location: r.location };
        }
        case 'dropConnection':
          return { type, afterCharge: this.faults.dropConnection!.afterCharge ?? false };
        case 'serverError': {
          const r = this.faults.serverError!;
          return { type, status: r.status ?? 500, html: r.html ?? false, afterCharge: r.afterCharge ?? false };
        }
        case 'rateLimit': {
          const r = this.faults.rateLimit!;
          return {
            type,
            retryAfterAsDate: r.retryAfterAsDate ?? false,
            plainText: r.plainText ?? false,
            ...(r.retryAfterSeconds !== undefined ? { retryAfterSeconds: r.retryAfterSeconds } : {}),
          };
        }
        default:
          return { type };
      }
    }
    return null;
  }
}

function matches(rulePath: string | undefined, path: string): boolean {
  if (rulePath === '*') return true;
  if (rulePath) return rulePath === path;
  return LOOKUP_PATHS.has(path);
}
