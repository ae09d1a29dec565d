/**
 * The one door to the upstream API: every call the gateway makes goes through here, on
 * lib/api's client (its schemas, error kinds, timeouts, key redaction and no-blind-paid-retry
 * rules). Rules that lib/api and lib/lookup gain (circuit breaking, backoff, lost answers)
 * therefore apply to the gateway by being added in one place.
 */
import { createApiClient } from '../../lib/api';
import { redactSecrets } from '../../lib/api/redact';
import type { AccountInfo, ApiClient, BulkLookup, RetryPolicy, SingleLookup, SubnetLookup } from '../../lib/api/types';

export interface UpstreamOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof globalThis.fetch;
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
  /** Replaces only the key itself (as sent, URL-encoded or base64): the last guard on every response. */
  scrubKey(text: string): string;
}

export function createUpstream(options: UpstreamOptions): Upstream {
  const client: ApiClient = createApiClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    authHeader: 'authorization',
    timeoutMs: options.timeoutMs,
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const withSignal = (signal?: AbortSignal) => (signal ? { signal } : {});
  const key = options.apiKey.trim();
  const keyVariants = [...new Set([key, encodeURIComponent(key), Buffer.from(key).toString('base64')])].filter((v) => v.length >= 4);
  return {
    bulk: (ips, signal) => client.checkIpBulk(ips, withSignal(signal)),
    detailed: (ip, signal) => client.checkIp(ip, { detailed: true, ...withSignal(signal) }),
    subnet: (cidr, signal) => client.checkSubnet(cidr, withSignal(signal)),
    account: (signal) => client.account(withSignal(signal)),
    redact: (text) => redactSecrets(text, [options.apiKey], 2_000),
    scrubKey: (text) => keyVariants.reduce((out, variant) => out.split(variant).join('[redacted]'), text),
  };
}
