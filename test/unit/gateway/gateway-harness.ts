/** A gateway over a given store with the API simulator as its upstream, for tests. */
import pino from 'pino';
import { Writable } from 'node:stream';
import { DEFAULT_SIGHTINGS, type DashboardSettings, type OidcSettings, type SignInSettings } from '../../../gateway/src/config';
import type { SightingsSource } from '../../../gateway/src/dashboard/team-stats';
import { createGateway, type Gateway, type GatewaySettings } from '../../../gateway/src/server';
import type { Store } from '../../../gateway/src/store/types';
import { addToken } from '../../../gateway/src/tokens';
import { createUpstream, type UpstreamOptions } from '../../../gateway/src/upstream';

export const TEST_SETTINGS: GatewaySettings = {
  ttls: { foundMs: 24 * 3600_000, notFoundMs: 6 * 3600_000, detailedMs: 7 * 24 * 3600_000 },
  reservePercent: 10,
  rateLimitPerMinute: 10_000,
  sendPrivate: false,
  leaseMs: 5_000,
  allowedOrigins: null,
  sightings: DEFAULT_SIGHTINGS,
};

export interface Harness {
  gateway: Gateway;
  /** Every log line the gateway wrote. */
  logs: string[];
}

export async function startGateway(options: {
  store: Store;
  upstreamUrl: string;
  key: string;
  settings?: Partial<GatewaySettings>;
  fetch?: typeof globalThis.fetch;
  /** Overrides of the upstream's options (a fast clock, timeouts). */
  upstream?: Partial<UpstreamOptions>;
  /** Single sign-on settings and the gateway's clock (for expiry). */
  oidc?: OidcSettings | null;
  signIn?: SignInSettings | null;
  now?: () => number;
  /** The team dashboard's settings (off when absent) and where it reads sightings. */
  dashboard?: DashboardSettings | null;
  sightings?: SightingsSource | null;
}): Promise<Harness> {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  const upstream = createUpstream({
    baseUrl: options.upstreamUrl,
    apiKey: options.key,
    timeoutMs: 5_000,
    retry: { baseDelayMs: 10, maxDelayMs: 50 },
    ...(options.fetch ? { fetch: options.fetch } : {}),
    store: options.store,
    ...options.upstream,
  });
  // No dashboard timer lands inside a test's measurement: counters are written when the summary
  // is read or the gateway closes; a replica beats once at start.
  const gateway = await createGateway({ settings: { ...TEST_SETTINGS, ...options.settings }, store: options.store, upstream, logger, pollMs: 50, oidc: options.oidc ?? null, signIn: options.signIn ?? null, dashboard: options.dashboard ?? null, statsEveryMs: 3_600_000, ...(options.sightings !== undefined ? { sightings: options.sightings } : {}), ...(options.now ? { now: options.now } : {}) });
  return { gateway, logs };
}

export async function tokenFor(store: Store, name: string, options: { budget?: number | null; expiresDays?: number | null } = {}) {
  return addToken(store, name, { budget: options.budget ?? null, expiresDays: options.expiresDays ?? null }, Date.now());
}
