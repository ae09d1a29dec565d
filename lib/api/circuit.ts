/**
 * A circuit breaker per endpoint: recovery is proven on the endpoint that failed, never inferred
 * from another one (a free /account that answers says nothing about a bulk endpoint that times
 * out or answers 503 behind the same host).
 *
 *   closed ──(an outage: timeout, network, 5xx, 429, unreadable answer)──► open until T
 *   open ──(T reached)──► half-open: ONE request (the probe) may go; all others are refused
 *   half-open ──(probe answered)──► closed      ──(probe failed)──► open, the next backoff step
 *
 * Waits grow by equal-jitter exponential backoff (backoff.ts) from `baseMs` to `maxMs` (5 s to
 * 5 min by default); a 429's Retry-After is honoured as given (nothing is let through earlier).
 * The probe holds a lease (`probeLeaseMs`): if its process stops before the outcome is known,
 * the next probe may go once the lease ends, never sooner, so there is one probe at a time for
 * every tab (the extension's tabs all call through one background) and across worker restarts.
 *
 * The breaker also keeps each endpoint's timeout (slow-timeout.ts): a timed-out endpoint is
 * given longer to answer next time, and the value outlives the worker with the rest.
 *
 * Browser-free: time, randomness and the store are passed in, so the extension (storage.session)
 * and the team gateway (its own store) share these rules, and tests drive them with a fake
 * clock. The breaker is passive: it never sets a timer; callers read `view()` to know when to
 * come back.
 */
import { equalJitterBackoff, type BackoffSteps } from './backoff';
import type { ApiErrorData, ApiErrorKind } from './errors';
import { DEFAULT_SLOW_TIMEOUT, raisedTimeout, relaxedTimeout, type SlowTimeoutRule } from './slow-timeout';

export type CircuitState = 'closed' | 'open' | 'half-open';

/** Failures that say the endpoint is down, slow or overloaded (worth a breaker). */
const OUTAGES: ReadonlySet<ApiErrorKind> = new Set<ApiErrorKind>(['timeout', 'network', 'server', 'rate-limited', 'bad-response']);

/** Whether this failure counts against the endpoint (an answered 400/403/404 does not). */
export function isOutage(error: Pick<ApiErrorData, 'kind'>): boolean {
  return OUTAGES.has(error.kind);
}

/** Where the breaker's state outlives its process (storage.session in the extension). */
export interface CircuitStore {
  load(): Promise<unknown>;
  save(value: unknown): Promise<void>;
  /**
   * For a store several processes share (the gateway's replicas on one Redis): takes the
   * half-open probe's lease atomically, so one probe goes for all of them; false when another
   * process holds it. With it, `acquire` reads the shared state before each request.
   */
  claimProbe?(endpoint: string, leaseMs: number): Promise<boolean>;
  /** Ends this process's probe lease (its outcome is known, or it was abandoned). */
  releaseProbe?(endpoint: string): Promise<void>;
}

export interface CircuitOptions {
  clock: { now(): number };
  store?: CircuitStore;
  random?: () => number;
  /** Backoff steps while an endpoint keeps failing. Default 5 s to 5 min. */
  backoff?: BackoffSteps;
  /** How long a probe may take before another may go (its process may have died). Default 60 s. */
  probeLeaseMs?: number;
  /** Longest Retry-After honoured (a larger one is clamped: a broken header must not stop us for days). Default 1 h. */
  maxRetryAfterMs?: number;
  timeouts?: SlowTimeoutRule;
}

/** What a caller may know about an endpoint. */
export interface CircuitView {
  state: CircuitState;
  /** When a request may be tried again: the end of the open period or of the probe's lease; null when it may go now. */
  retryAt: number | null;
  /** Outages in a row. */
  failures: number;
  /** The outage that opened it (for the words shown to the analyst). */
  reason: ApiErrorData | null;
  /** The timeout to use for this endpoint's next request. */
  timeoutMs: number;
}

/** Permission for one request, and the way to report its outcome (once; later reports are ignored). */
export interface CircuitPermit {
  /** This request is the half-open probe. */
  readonly probe: boolean;
  /** The endpoint answered (any answer that is not an outage), after `elapsedMs`. */
  succeeded(elapsedMs?: number): void;
  failed(error: ApiErrorData): void;
  /** Cancelled by the caller before an outcome: it proves nothing either way. */
  abandoned(): void;
}

interface EndpointRecord {
  failures: number;
  openUntil: number;
  /** End of the lease of the probe in flight, or 0. */
  probeUntil: number;
  reason: ApiErrorData | null;
  timeoutMs: number;
}

const STORED_VERSION = 1;

export class CircuitBreaker {
  private readonly records = new Map<string, EndpointRecord>();
  private readonly listeners = new Set<(endpoint: string) => void>();
  private readonly backoff: BackoffSteps;
  private readonly timeouts: SlowTimeoutRule;
  private readonly random: () => number;
  private restored: Promise<void> | null = null;
  private saving: Promise<void> = Promise.resolve();
  /** Something changed in this run: what an earlier run stored is older. */
  private changed = false;

  constructor(private readonly options: CircuitOptions) {
    this.backoff = options.backoff ?? { baseMs: 5_000, maxMs: 5 * 60_000 };
    this.timeouts = options.timeouts ?? DEFAULT_SLOW_TIMEOUT;
    this.random = options.random ?? Math.random;
  }

  /** Takes up what an earlier process stored (open circuits, a probe's lease). Never rejects. */
  restore(): Promise<void> {
    this.restored ??= (async () => {
      let raw: unknown;
      try {
        raw = await this.options.store?.load();
      } catch {
        return;
      }
      if (this.changed) return;
      for (const [endpoint, record] of parseStored(raw, this.timeouts)) this.records.set(endpoint, record);
    })();
    return this.restored;
  }

  /** Resolves when every write so far has landed. */
  flush(): Promise<void> {
    return this.saving;
  }

  /** Called with the endpoint whenever its state changes (the engine re-plans its sending). */
  onChange(listener: (endpoint: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  view(endpoint: string): CircuitView {
    const record = this.records.get(endpoint);
    const timeoutMs = record?.timeoutMs ?? this.timeouts.baseMs;
    if (!record || record.failures === 0) return { state: 'closed', retryAt: null, failures: 0, reason: null, timeoutMs };
    const now = this.options.clock.now();
    const base = { failures: record.failures, reason: record.reason, timeoutMs };
    if (now < record.openUntil) return { ...base, state: 'open', retryAt: record.openUntil };
    return { ...base, state: 'half-open', retryAt: now < record.probeUntil ? record.probeUntil : null };
  }

  /** The state lives in a store other processes write too (see CircuitStore.claimProbe). */
  get shared(): boolean {
    return typeof this.options.store?.claimProbe === 'function';
  }

  /**
   * `tryAcquire` over a shared store: reads what every process stored first, and takes the
   * half-open probe's lease in the store atomically, so replicas agree on open circuits and
   * send one probe between them. Without a shared store it is `tryAcquire`.
   */
  async acquire(endpoint: string): Promise<CircuitPermit | null> {
    const store = this.options.store;
    if (!store?.claimProbe) return this.tryAcquire(endpoint);
    await this.sync();
    const view = this.view(endpoint);
    if (view.state === 'open' || view.retryAt !== null) return null;
    if (view.state === 'half-open') {
      const leaseMs = this.options.probeLeaseMs ?? 60_000;
      if (!(await store.claimProbe(endpoint, leaseMs).catch(() => false))) return null;
      const permit = this.tryAcquire(endpoint);
      if (!permit) return null;
      const release = () => void store.releaseProbe?.(endpoint).catch(() => undefined);
      return {
        probe: permit.probe,
        succeeded: (elapsedMs) => (permit.succeeded(elapsedMs), void this.saving.then(release)),
        failed: (error) => (permit.failed(error), void this.saving.then(release)),
        abandoned: () => (permit.abandoned(), void this.saving.then(release)),
      };
    }
    return this.tryAcquire(endpoint);
  }

  /** Replaces this process's view with the shared store's (other replicas wrote it). */
  private async sync(): Promise<void> {
    await this.saving;
    let raw: unknown;
    try {
      raw = await this.options.store?.load();
    } catch {
      return;
    }
    this.records.clear();
    for (const [endpoint, record] of parseStored(raw, this.timeouts)) this.records.set(endpoint, record);
  }

  /** Endpoints not closed now. */
  troubled(): string[] {
    return [...this.records].filter(([, r]) => r.failures > 0).map(([endpoint]) => endpoint);
  }

  /**
   * Asks to send one request: a permit (closed, or the one half-open probe), or null while the
   * endpoint is open or a probe is already out.
   */
  tryAcquire(endpoint: string): CircuitPermit | null {
    const view = this.view(endpoint);
    if (view.state === 'open' || view.retryAt !== null) return null;
    const probe = view.state === 'half-open';
    if (probe) {
      const record = this.records.get(endpoint)!;
      record.probeUntil = this.options.clock.now() + (this.options.probeLeaseMs ?? 60_000);
      this.save(endpoint);
    }
    let done = false;
    const once = (action: () => void) => {
      if (done) return;
      done = true;
      action();
    };
    return {
      probe,
      succeeded: (elapsedMs) => once(() => this.succeeded(endpoint, elapsedMs)),
      failed: (error) => once(() => (isOutage(error) ? this.failed(endpoint, error, probe) : this.succeeded(endpoint))),
      abandoned: () =>
        once(() => {
          const record = this.records.get(endpoint);
          if (probe && record) {
            record.probeUntil = 0;
            this.save(endpoint);
          }
        }),
    };
  }

  /** The endpoint answered: closed, and its timeout relaxed if the answer was prompt. */
  succeeded(endpoint: string, elapsedMs?: number): void {
    const record = this.records.get(endpoint);
    if (!record) return;
    const timeoutMs = elapsedMs === undefined ? record.timeoutMs : relaxedTimeout(record.timeoutMs, elapsedMs, this.timeouts);
    if (record.failures === 0 && timeoutMs === record.timeoutMs) return;
    if (timeoutMs === this.timeouts.baseMs) this.records.delete(endpoint);
    else this.records.set(endpoint, { failures: 0, openUntil: 0, probeUntil: 0, reason: null, timeoutMs });
    this.save(endpoint);
  }

  /**
   * An outage. From a closed endpoint or the probe: open for the next backoff step (or the
   * Retry-After). From a request that left before the circuit opened: its failure is already
   * known, so the wait is not lengthened again (only a longer Retry-After extends it).
   */
  failed(endpoint: string, error: ApiErrorData, probe = false): void {
    if (!isOutage(error)) return;
    const now = this.options.clock.now();
    const record = this.records.get(endpoint) ?? { failures: 0, openUntil: 0, probeUntil: 0, reason: null, timeoutMs: this.timeouts.baseMs };
    if (error.kind === 'timeout') record.timeoutMs = raisedTimeout(record.timeoutMs, this.timeouts);
    const asked = error.retryAfterMs !== undefined ? Math.min(error.retryAfterMs, this.options.maxRetryAfterMs ?? 3_600_000) : undefined;
    const fresh = record.failures === 0 || probe;
    if (fresh) {
      record.failures += 1;
      const wait = asked ?? equalJitterBackoff(record.failures, this.backoff, this.random);
      record.openUntil = now + wait;
      record.reason = { kind: error.kind, message: error.message, ...(error.status !== undefined ? { status: error.status } : {}) };
    } else if (asked !== undefined) {
      record.openUntil = Math.max(record.openUntil, now + asked);
    }
    if (probe) record.probeUntil = 0;
    this.records.set(endpoint, record);
    this.save(endpoint);
  }

  /** Another server or key: what this one met says nothing about it. */
  reset(): void {
    if (!this.records.size) return;
    const endpoints = [...this.records.keys()];
    this.records.clear();
    for (const endpoint of endpoints) this.save(endpoint);
  }

  /** One write at a time, of the state when it starts; a failed write changes nothing here. */
  private save(endpoint: string): void {
    this.changed = true;
    for (const listener of this.listeners) listener(endpoint);
    const store = this.options.store;
    if (!store) return;
    this.saving = this.saving
      .then(() => store.save({ v: STORED_VERSION, endpoints: Object.fromEntries(this.records) }))
      .catch(() => undefined);
  }
}

/** Checked by hand: a stored value may come from another version, or be garbage. */
function parseStored(raw: unknown, timeouts: SlowTimeoutRule): Map<string, EndpointRecord> {
  const out = new Map<string, EndpointRecord>();
  if (typeof raw !== 'object' || raw === null) return out;
  const value = raw as { v?: unknown; endpoints?: unknown };
  if (value.v !== STORED_VERSION || typeof value.endpoints !== 'object' || value.endpoints === null) return out;
  const isTime = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  for (const [endpoint, entry] of Object.entries(value.endpoints as Record<string, unknown>)) {
    if (typeof entry !== 'object' || entry === null || endpoint.length > 200) continue;
    const r = entry as Record<string, unknown>;
    if (!isTime(r.failures) || !isTime(r.openUntil) || !isTime(r.probeUntil) || !isTime(r.timeoutMs)) continue;
    const reason = r.reason as Partial<ApiErrorData> | null | undefined;
    const reasonOk = reason && typeof reason.kind === 'string' && OUTAGES.has(reason.kind) && typeof reason.message === 'string';
    out.set(endpoint, {
      failures: Math.min(Math.floor(r.failures), 1_000),
      openUntil: r.openUntil,
      probeUntil: r.probeUntil,
      reason: reasonOk ? { kind: reason.kind!, message: reason.message! } : null,
      timeoutMs: Math.min(Math.max(r.timeoutMs, timeouts.baseMs), timeouts.capMs),
    });
  }
  return out;
}
