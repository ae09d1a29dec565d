/**
 * The one door to the upstream API: every call the gateway makes goes through here, on
 * lib/api's client (its schemas, error kinds, timeouts, key redaction and no-blind-paid-retry
 * rules) and lib's rules for a half-broken API, the same objects the extension uses:
 * - a circuit per endpoint (lib/api/circuit.ts): while open nothing is sent, one half-open probe
 *   at a time; its state and the probe's lease live in the gateway's store, so every replica
 *   sees the same open circuit and one probe goes for all of them;
 * - the slow-server timeout (lib/api/slow-timeout.ts, kept by the circuit): a timed-out endpoint
 *   is given longer next time, up to `slowCapMs`;
 * - the lost-answer memory (lib/lookup/lost-answer-memory.ts), shared through the store too.
 */
import { randomUUID } from 'node:crypto';
import { createApiClient } from '../../lib/api';
import { CircuitBreaker, type CircuitStore } from '../../lib/api/circuit';
import { redactSecrets } from '../../lib/api/redact';
import type { AccountInfo, ApiClient, ApiTimers, BulkLookup, RetryPolicy, SingleLookup, SubnetLookup } from '../../lib/api/types';
import { LostAnswerMemory } from '../../lib/lookup/lost-answer-memory';
import type { Store } from './store/types';

export interface UpstreamOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof globalThis.fetch;
  /** Where the circuit and the lost-answer memory live (shared by replicas). Absent: this process only. */
  store?: Store;
  /** The longest wait for a slow endpoint after timeouts. Default 4 × timeoutMs. */
  slowCapMs?: number;
  /** Time for the client's timeouts and the circuit (tests pass a fast clock). */
  timers?: ApiTimers;
  random?: () => number;
}

export interface Upstream {
  /** At most BULK_CHUNK_SIZE IPs per HTTP call (lib/api splits and merges). */
  bulk(ips: readonly string[], signal?: AbortSignal): Promise<BulkLookup>;
  detailed(ip: string, signal?: AbortSignal): Promise<SingleLookup>;
  subnet(cidr: string, signal?: AbortSignal): Promise<SubnetLookup>;
  /** Free: the organisation's usage and limit. */
  account(signal?: AbortSignal): Promise<AccountInfo>;
  /** Removes the key (and anything that looks like a credential) from text bound for a client or a log. */
  redact(text: string): string;
  /** The circuit per upstream endpoint (keyed by path, e.g. /checkIP/bulk). */
  readonly circuit: CircuitBreaker;
  /** IPs whose paid answer was lost: re-asked automatically at most once an hour. */
  readonly lostAnswers: LostAnswerMemory;
  now(): number;
  /** Replaces only the key itself (as sent, URL-encoded or base64): the last guard on every response. */
  scrubKey(text: string): string;
}

export function createUpstream(options: UpstreamOptions): Upstream {
  const { store } = options;
  const now = () => options.timers?.now() ?? Date.now();
  const owner = randomUUID();
  const circuitStore: CircuitStore | undefined = store && {
    load: () => store.getShared('circuit'),
    save: (value) => store.putShared('circuit', value),
    claimProbe: async (endpoint, leaseMs) => (await store.claim('probe', endpoint, owner, leaseMs)) !== 'held',
    releaseProbe: async (endpoint) => void (await store.releaseClaim('probe', endpoint, owner)),
  };
  const circuit = new CircuitBreaker({
    clock: { now },
    ...(circuitStore ? { store: circuitStore } : {}),
    ...(options.random ? { random: options.random } : {}),
    timeouts: { baseMs: options.timeoutMs, capMs: options.slowCapMs ?? options.timeoutMs * 4 },
  });
  const lostAnswers = new LostAnswerMemory({
    clock: { now },
    ...(store ? { store: { load: () => store.getShared('lost-answers'), save: (value) => store.putShared('lost-answers', value) } } : {}),
  });
  const client: ApiClient = createApiClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    authHeader: 'authorization',
    timeoutMs: options.timeoutMs,
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.timers ? { timers: options.timers } : {}),
    circuit,
  });
  const withSignal = (signal?: AbortSignal) => (signal ? { signal } : {});
  const key = options.apiKey.trim();
  const keyVariants = [...new Set([key, encodeURIComponent(key), Buffer.from(key).toString('base64')])].filter((v) => v.length >= 4);
  return {
    bulk: (ips, signal) => client.checkIpBulk(ips, withSignal(signal)),
    detailed: (ip, signal) => client.checkIp(ip, { detailed: true, ...withSignal(signal) }),
    subnet: (cidr, signal) => client.checkSubnet(cidr, withSignal(signal)),
    account: (signal) => client.account(withSignal(signal)),
    circuit,
    lostAnswers,
    now,
    redact: (text) => redactSecrets(text, [options.apiKey], 2_000),
    scrubKey: (text) => keyVariants.reduce((out, variant) => out.split(variant).join('[redacted]'), text),
  };
}
