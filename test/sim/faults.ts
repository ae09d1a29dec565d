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
}

export interface SimFaults {
  /** Delay before every API answer (all endpoints unless latencyPath). Not consumed. */
  latencyMs?: number;
  latencyPath?: string;
  /** 429 `Rate limit exceeded`, with a Retry-After header when retryAfterSeconds is set. */
  rateLimit?: FaultRule & { retryAfterSeconds?: number; retryAfterAsDate?: boolean };
  /** A 5xx (default 500); with `html` an HTML error page instead of the JSON error body. */
  serverError?: FaultRule & { status?: number; html?: boolean };
  /** 200 with a truncated JSON body. */
  invalidJson?: FaultRule;
  /** The socket is destroyed without an answer. */
  dropConnection?: FaultRule;
}

export type ConsumableFault = 'dropConnection' | 'serverError' | 'rateLimit' | 'invalidJson';

const ORDER: ConsumableFault[] = ['dropConnection', 'serverError', 'rateLimit', 'invalidJson'];
const LOOKUP_PATHS = new Set(['/checkIP', '/checkIP/bulk', '/checkSubnet']);

export type FiredFault =
  | { type: 'dropConnection' }
  | { type: 'serverError'; status: number; html: boolean }
  | { type: 'rateLimit'; retryAfterSeconds?: number; retryAfterAsDate: boolean }
  | { type: 'invalidJson' };

export class FaultStore {
  private faults: SimFaults = {};

  /** Merges: each fault given replaces the pending one of its type. */
  set(faults: SimFaults): void {
    this.faults = { ...this.faults, ...faults };
  }

  clear(): void {
    this.faults = {};
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
      rule.count -= 1;
      switch (type) {
        case 'serverError': {
          const r = this.faults.serverError!;
          return { type, status: r.status ?? 500, html: r.html ?? false };
        }
        case 'rateLimit': {
          const r = this.faults.rateLimit!;
          return {
            type,
            retryAfterAsDate: r.retryAfterAsDate ?? false,
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
