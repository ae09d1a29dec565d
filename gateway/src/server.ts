/**
 * The gateway's HTTP face: the API's v1 routes, in the API's shapes and error bodies, for
 * analysts holding personal tokens; plus /healthz, /readyz and /metrics for operators.
 *
 *   request ─► CORS ─► token (401/403; bad tokens from one address slowed down) ─► rate limit
 *   (429) ─► validate (lib/ip; bad input is a 400 that costs nothing) ─► daily budget ─►
 *   BuyOnce (cache, claims, team ledger, upstream) ─► API-shaped answer + X-Cache ─► audit line
 */
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ApiError } from '../../lib/api/errors';
import { limitsFromAccount } from '../../lib/api/account-limits';
import { lookupSkipReason, toLookupForm } from '../../lib/ip';
import { BuyOnce, type LookupOutcome, type Resolved } from './buy-once';
import type { DashboardSettings, GatewayConfig, OidcSettings, SignInSettings } from './config';
import { identify } from './credentials';
import { registerDashboard } from './dashboard/routes';
import { countsOf, storeSightings, TeamStats, type SightingsSource } from './dashboard/team-stats';
import { createMetrics, type Metrics } from './metrics';
import { dayOf, type Store, type TokenRecord } from './store/types';
import { TeamLedger } from './team-ledger';
import { OidcVerifier } from './oidc';
import { Sessions } from './sessions';
import { registerSignIn } from './sign-in';
import { credentialOf } from './tokens';
import { TeamSightings } from './team-sightings';
import type { Upstream } from './upstream';
import { bulkDataOf, bulkRowJson, ERROR_CODES, errorBody, MESSAGES, provenanceJson, provenanceOf, singleBodyOf, withSightingsJson, type CacheSource } from './wire';

export const MAX_BULK_IPS = 100;
export const BODY_LIMIT_BYTES = 64 * 1024;
/** Failed token checks one address may make a minute before it is slowed down (429). */
const BAD_TOKENS_PER_MINUTE = 10;
/** A token's "last used" is written at most this often by one replica for lookups that cost nothing. */
const MARK_USED_EVERY_MS = 1_000;

export type GatewaySettings = Pick<GatewayConfig, 'ttls' | 'reservePercent' | 'rateLimitPerMinute' | 'sendPrivate' | 'leaseMs' | 'allowedOrigins' | 'sightings'>;

export interface GatewayParts {
  settings: GatewaySettings;
  store: Store;
  upstream: Upstream;
  logger: Logger;
  https?: { cert: string; key: string } | null;
  pollMs?: number;
  now?: () => number;
  /** Single sign-on: bearer JWTs of the organisation's identity provider are accepted too. */
  oidc?: OidcSettings | null;
  /** "Sign in with your organisation" (needs `oidc`): gateway sessions for the extension. */
  signIn?: SignInSettings | null;
  /** How the gateway reaches the identity provider (tests pass their own). */
  fetch?: typeof fetch;
  /** The team dashboard (off without an admin token or admin group). */
  dashboard?: DashboardSettings | null;
  /** Where the dashboard reads the most-seen IPs; absent: the store's, over the sightings' retention; null: none. */
  sightings?: SightingsSource | null;
  /** How often each replica beats and writes its dashboard counters (default 10 s). */
  statsEveryMs?: number;
}

export interface Gateway {
  app: FastifyInstance;
  core: BuyOnce;
  ledger: TeamLedger;
  metrics: Metrics;
  stats: TeamStats;
  /** Stops taking requests, drains those in flight, then closes the store. */
  close(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    analyst?: TokenRecord;
    startedAt?: number;
  }
}

class HttpFailure extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export async function createGateway(parts: GatewayParts): Promise<Gateway> {
  const { settings, store, upstream, logger } = parts;
  const now = parts.now ?? Date.now;
  const metrics = createMetrics();
  const ledger = new TeamLedger(store, upstream, settings.reservePercent, now);
  const sightings = new TeamSightings(settings.sightings, store, logger, now);
  const core = new BuyOnce({ store, upstream, ledger, ttls: settings.ttls, leaseMs: settings.leaseMs, metrics, now, ...(parts.pollMs ? { pollMs: parts.pollMs } : {}) });
  let draining = false;
  const oidc = parts.oidc ? new OidcVerifier(parts.oidc, parts.fetch, now) : null;
  const sessions = parts.oidc && parts.signIn ? new Sessions(store, parts.oidc, parts.signIn, now) : null;
  /** When this replica last marked each token used (see finish). */
  const lastMarked = new Map<string, number>();
  const dashboard: DashboardSettings = parts.dashboard ?? { adminTokenHash: null, adminGroup: null, historyDays: 90 };
  const stats = new TeamStats({ store, ledger, reservePercent: settings.reservePercent, historyDays: dashboard.historyDays, ssoBudget: parts.oidc?.budget ?? null, now, ...(parts.statsEveryMs ? { everyMs: parts.statsEveryMs } : {}), sightings: parts.sightings === undefined ? (settings.sightings.retentionMs > 0 ? storeSightings(store, now, settings.sightings.retentionMs) : null) : parts.sightings });
  // The admin group is checked by a verifier of its own: the same provider, another group.
  const adminOidc = parts.oidc && dashboard.adminGroup ? new OidcVerifier({ ...parts.oidc, group: dashboard.adminGroup }, parts.fetch, now) : null;

  const app = Fastify({
    loggerInstance: logger,
    // Our own audit line per lookup replaces fastify's two lines per request.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    ...(parts.https ? { https: parts.https } : {}),
  }) as unknown as FastifyInstance;

  try {
    await core.start();
  } catch (error) {
    // Redis down at start: the gateway still starts; /readyz says so and lookups fail closed.
    logger.warn({ err: redactError(upstream, error) }, 'store subscription failed; waiters rely on polling');
  }

  const originAllowed = (origin: string) =>
    settings.allowedOrigins ? settings.allowedOrigins.includes(origin) : /^(chrome|moz)-extension:\/\/[a-z0-9-]+$/i.test(origin);

  app.addHook('onRequest', async (request, reply) => {
    request.startedAt = performance.now();
    const origin = request.headers.origin;
    if (typeof origin === 'string' && originAllowed(origin)) {
      reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin');
      reply.header('Access-Control-Expose-Headers', 'Retry-After, X-Cache, X-Cache-Age');
      if (request.method === 'OPTIONS') {
        return reply
          .code(204)
          .header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS')
          .header('Access-Control-Allow-Headers', 'Authorization, X-API-Key, Content-Type')
          .header('Access-Control-Max-Age', '600')
          .send();
      }
    }
  });

  // Whatever the upstream put in an answer, the organisation key never leaves in a response.
  app.addHook('onSend', async (_request, reply, payload) => {
    // While draining, a kept-alive connection would hold the close open: end each after its answer.
    if (draining) reply.header('Connection', 'close');
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (typeof value === 'string' && upstream.scrubKey(value) !== value) reply.header(name, upstream.scrubKey(value));
    }
    return typeof payload === 'string' ? upstream.scrubKey(payload) : payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unknown';
    metrics.requests.inc({ route, status: String(reply.statusCode) });
    if (request.startedAt !== undefined) metrics.latency.observe({ route }, (performance.now() - request.startedAt) / 1000);
  });

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    if (error instanceof HttpFailure) {
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      return reply.code(error.statusCode).send(errorBody(error.statusCode, error.message));
    }
    if (error instanceof ApiError) {
      const failure = upstreamFailure(error);
      for (const [name, value] of Object.entries(failure.headers)) reply.header(name, value);
      return reply.code(failure.statusCode).send(errorBody(failure.statusCode, failure.message));
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(400).send(errorBody(400, MESSAGES.bodyTooLarge));
    if (error.statusCode === 400 || error.code?.startsWith('FST_ERR_CTP')) return reply.code(400).send(errorBody(400, MESSAGES.invalidBody));
    request.log.error({ err: redactError(upstream, error) }, 'request failed');
    return reply.code(500).send(errorBody(500, MESSAGES.internal));
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(errorBody(404, MESSAGES.notFound)));

  /** The analyst behind a request, or the API's 401/403 (test-key's odd 401 body included). */
  async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<TokenRecord | null> {
    const credential = credentialOf(request.headers);
    if (!credential) {
      if (request.routeOptions.url === '/api/v1/test-key') {
        reply.code(401).send({ statusCode: 401, statusMessage: MESSAGES.testKeyMissing });
      } else {
        reply.code(401).send(errorBody(401, MESSAGES.missingToken));
      }
      return null;
    }
    const checked = await guardStore(() => identify({ store, oidc, sessions, now }, credential));
    if (!checked.ok) {
      if (checked.status === 503) throw new HttpFailure(503, checked.message, { 'Retry-After': '5' });
      metrics.refused.inc({ reason: 'bad-token' });
      // An ended session is no guess (its 256 random bits cannot be guessed): a burst of lookups
      // that all meet it must each say "sign in again", never a 429 that hides it.
      if (checked.code !== ERROR_CODES.signInAgain) {
        const slow = await guardStore(() => store.rateLimit(`bad:${request.ip}`, BAD_TOKENS_PER_MINUTE, 60_000));
        if (!slow.allowed) throw rateLimited(slow.retryAfterMs);
      }
      reply.code(403).send(errorBody(403, checked.message, checked.code));
      return null;
    }
    const limit = await guardStore(() => store.rateLimit(`tok:${checked.token.name}`, settings.rateLimitPerMinute, 60_000));
    if (!limit.allowed) {
      metrics.refused.inc({ reason: 'rate-limit' });
      throw rateLimited(limit.retryAfterMs);
    }
    request.analyst = checked.token;
    return checked.token;
  }

  async function checkBudget(token: TokenRecord) {
    if (token.budget === null) return;
    const used = await guardStore(() => store.usageOf(token.name, dayOf(now())));
    if (used >= token.budget) {
      metrics.refused.inc({ reason: 'budget' });
      throw new HttpFailure(403, MESSAGES.budget);
    }
  }

  async function finish(request: FastifyRequest, token: TokenRecord, outcome: LookupOutcome, ips: number) {
    const misses = [...outcome.answers.values()].filter((a) => a.status !== 'error' && a.source === 'miss').length;
    metrics.cacheHits.inc(outcome.hits);
    metrics.coalesced.inc(outcome.coalesced);
    metrics.cacheMisses.inc(misses);
    // What a purchase cost counts before the answer leaves (the next request's budget check
    // reads it). A lookup that bought nothing only marks the token used: off the answer's
    // path, and at most once a second per token and replica (`token list` shows no finer).
    const at = now();
    if (outcome.units > 0) {
      lastMarked.set(token.name, at);
      await store.recordUse(token.name, dayOf(at), outcome.units, at).catch(() => 0);
    } else if (at - (lastMarked.get(token.name) ?? -Infinity) >= MARK_USED_EVERY_MS) {
      lastMarked.set(token.name, at);
      void store.recordUse(token.name, dayOf(at), 0, at).catch(() => 0);
    }
    stats.record(token.name, ips, countsOf(outcome));
    request.log.info({ audit: 'lookup', route: request.routeOptions.url, token: token.name, ips, units: outcome.units, hits: outcome.hits, coalesced: outcome.coalesced, misses }, 'lookup');
  }

  function cacheHeaders(reply: FastifyReply, answers: Resolved[]) {
    const sources = answers.filter((a) => a.status !== 'error');
    if (!sources.length) return;
    const source: CacheSource = sources.some((a) => a.source === 'miss') ? 'miss' : sources.some((a) => a.source === 'coalesced') ? 'coalesced' : 'hit';
    const oldest = Math.min(...sources.map((a) => a.fetchedAt));
    reply.header('X-Cache', source).header('X-Cache-Age', String(Math.max(0, Math.floor((now() - oldest) / 1000))));
  }

  /** Upstream failures in the API's error shape, never quoting the organisation key. */
  function upstreamFailure(error: ApiError): HttpFailure {
    if (error.kind === 'quota-exhausted') return new HttpFailure(403, error.message.startsWith('API usage limit') ? error.message : 'API usage limit exceeded');
    if (error.kind === 'rate-limited') return rateLimited(error.retryAfterMs ?? 1000);
    // The endpoint's circuit is open: nothing was sent; say when one request checks it again.
    if (error.circuitOpen) {
      return new HttpFailure(503, `${MESSAGES.upstream}: ${upstream.redact(error.message)}`, { 'Retry-After': String(Math.max(1, Math.ceil((error.retryAfterMs ?? 1000) / 1000))) });
    }
    return new HttpFailure(502, `${MESSAGES.upstream}: ${upstream.redact(error.message)}`);
  }

  app.get('/api/v1/checkIP', async (request, reply) => {
    const token = await authenticate(request, reply);
    if (!token) return reply;
    const query = request.query as Record<string, unknown>;
    const raw = typeof query.ip === 'string' ? query.ip.trim() : '';
    if (!raw) throw new HttpFailure(400, MESSAGES.ipRequired);
    const ip = toLookupForm(raw);
    if (!ip || lookupSkipReason(raw, { sendPrivate: true }) === 'invalid') throw new HttpFailure(400, MESSAGES.invalidIp);
    if (lookupSkipReason(ip, { sendPrivate: settings.sendPrivate }) !== null) throw new HttpFailure(400, MESSAGES.privateIp);
    // Read beside the budget check (one round trip); the cached answer read serves the lookup.
    const readAhead = sightings.enabled ? sightings.read([ip]).catch(() => undefined) : undefined;
    await checkBudget(token);
    const detailed = query.detailed === 'true';
    const read = await readAhead;
    const outcome = await guardStore(() => (detailed ? core.detailed(ip) : core.reputations([ip], undefined, read?.answers)));
    await finish(request, token, outcome, 1);
    const answer = outcome.answers.get(ip)!;
    if (answer.status === 'error') throw upstreamFailure(answer.error);
    cacheHeaders(reply, [answer]);
    const summary = sightings.summaryOf(ip, read, token.name);
    const provenance = { ...provenanceOf(answer.source, answer.fetchedAt, now()), ...(summary ? { sightings: summary } : {}) };
    sightings.record(token.name, [ip], new Set(query.asked === 'true' ? [ip] : []));
    if (answer.status === 'not-found') return reply.code(404).send({ ...errorBody(404, MESSAGES.notFoundIp), gateway: provenance });
    return singleBodyOf({ ...answer.data, ip: raw }, detailed ? (answer.info ?? null) : null, provenance);
  });

  /** A bulk body's IPs, each canonical or refused with its reason; or the 400 it deserves. */
  function bulkRequestOf(request: FastifyRequest) {
    if (!/^application\/json\b/i.test(request.headers['content-type'] ?? '')) return new HttpFailure(400, MESSAGES.invalidBody);
    const body = request.body as { ips?: unknown } | null;
    const ips = body && typeof body === 'object' && !Array.isArray(body) ? body.ips : undefined;
    if (!Array.isArray(ips) || ips.length === 0 || !ips.every((ip) => typeof ip === 'string')) return new HttpFailure(400, MESSAGES.invalidBody);
    if (ips.length > MAX_BULK_IPS) return new HttpFailure(400, MESSAGES.tooManyIps);
    // `asked`: the IPs of `ips` the analyst asked for (the rest were on a page): sightings.
    const askedList = (body as { asked?: unknown }).asked;
    if (askedList !== undefined && (!Array.isArray(askedList) || askedList.length > MAX_BULK_IPS || !askedList.every((ip) => typeof ip === 'string'))) {
      return new HttpFailure(400, MESSAGES.invalidAsked);
    }
    const byAnalyst = new Set(((askedList ?? []) as string[]).flatMap((spelled) => toLookupForm(spelled.trim()) ?? []));
    const asked = (ips as string[]).map((spelled) => {
      const ip = toLookupForm(spelled.trim());
      if (!ip) return { spelled, ip: null, refusal: MESSAGES.invalidIp };
      if (lookupSkipReason(ip, { sendPrivate: settings.sendPrivate }) !== null) return { spelled, ip: null, refusal: MESSAGES.privateIp };
      return { spelled, ip, refusal: null };
    });
    return { ips: ips as string[], asked, byAnalyst, lookupable: [...new Set(asked.flatMap((a) => (a.ip ? [a.ip] : [])))] };
  }

  app.post('/api/v1/checkIP/bulk', async (request, reply) => {
    const parsed = bulkRequestOf(request);
    // The cached answers are read while the token is checked (one round trip for both); they
    // are used only once the token holds. Without a credential nothing is read.
    // The IPs' sightings come in the same read.
    const peeked = !(parsed instanceof HttpFailure) && parsed.lookupable.length && credentialOf(request.headers) ? sightings.read(parsed.lookupable).catch(() => undefined) : undefined;
    const token = await authenticate(request, reply);
    if (!token) return reply;
    if (parsed instanceof HttpFailure) throw parsed;
    const { ips, asked, byAnalyst, lookupable } = parsed;
    if (lookupable.length) await checkBudget(token);
    const read = await peeked;
    const outcome = lookupable.length ? await guardStore(async () => core.reputations(lookupable, undefined, read?.answers)) : { answers: new Map(), units: 0, hits: 0, coalesced: 0 };
    await finish(request, token, outcome, lookupable.length);
    const answers = [...outcome.answers.values()];
    const errors = answers.filter((a): a is Extract<Resolved, { status: 'error' }> => a.status === 'error');
    // Nothing answered and the team cannot buy: say so as the API would, with its status.
    if (errors.length && errors.length === answers.length) {
      const first = errors[0]!.error;
      if (first.kind === 'quota-exhausted' || first.kind === 'rate-limited' || first.circuitOpen) throw upstreamFailure(first);
    }
    cacheHeaders(reply, answers);
    let failed = 0;
    const at = now();
    // Rows are written as JSON text (wire.ts's bulkRowJson, the same shape as bulkRowOf): a
    // cached answer's rows are mostly pieces serialized before; one provenance per purchase.
    const provenances = new Map<string, string>();
    const rows = asked.map(({ spelled, ip, refusal }) => {
      if (!ip) return failed++, JSON.stringify({ ip: spelled, data: null, error: refusal });
      const answer = outcome.answers.get(ip)!;
      if (answer.status === 'error') {
        failed++;
        // "Failed…" reads as a failed lookup (asked again later), never as "not in the database".
        return JSON.stringify({ ip: spelled, data: null, error: `Failed to look up: ${upstream.redact(answer.error.message)}` });
      }
      const key = `${answer.source} ${answer.fetchedAt}`;
      let provenance = provenances.get(key);
      if (provenance === undefined) provenances.set(key, (provenance = provenanceJson(answer.source, answer.fetchedAt, at)));
      if (answer.status === 'not-found') failed++;
      return bulkRowJson(spelled, answer, withSightingsJson(provenance, sightings.summaryOf(ip, read, token.name)));
    });
    sightings.record(token.name, lookupable.filter((ip) => outcome.answers.get(ip)?.status !== 'error'), byAnalyst);
    const body = `{"results":[${rows.join(',')}],"total":${ips.length},"successful":${ips.length - failed},"failed":${failed}}`;
    return reply.type('application/json; charset=utf-8').send(body);
  });

  app.get('/api/v1/checkSubnet', async (request, reply) => {
    const token = await authenticate(request, reply);
    if (!token) return reply;
    const cidr = (request.query as Record<string, unknown>).cidr;
    if (typeof cidr !== 'string' || !cidr.trim()) throw new HttpFailure(400, MESSAGES.cidrRequired);
    await checkBudget(token);
    // Worst case: every address of the block is found (a /24 or /120 at most: lib/api checks).
    const worst = 256;
    if (!(await guardStore(() => ledger.reserve(worst)))) throw new HttpFailure(403, MESSAGES.teamReserve);
    let spent = 0;
    try {
      const subnet = await upstream.subnet(cidr.trim());
      metrics.upstreamCalls.inc({ endpoint: 'checkSubnet' });
      spent = subnet.items.length;
      const at = now();
      // Every address found is an answer the team has paid for: share it like a bulk answer.
      await store.putAnswers(subnet.items.map(({ ipInfo: _info, ...data }) => ({ ip: data.ip, answer: { status: 'found' as const, data, fetchedAt: at }, ttlMs: settings.ttls.foundMs })));
      await store.recordUse(token.name, dayOf(at), spent, at);
      stats.record(token.name, subnet.items.length, { paid: spent, saved: 0, hits: 0, misses: subnet.items.length });
      request.log.info({ audit: 'lookup', route: '/api/v1/checkSubnet', token: token.name, ips: subnet.summary?.total ?? null, units: spent, hits: 0, coalesced: 0, misses: spent }, 'lookup');
      reply.header('X-Cache', 'miss').header('X-Cache-Age', '0');
      const s = subnet.summary;
      return {
        cidr: subnet.cidr,
        total_ips: s?.total ?? null,
        results: subnet.items.map(bulkDataOf),
        summary: s ? { total: s.total, malicious: s.malicious, clean: s.clean, average_score: s.averageScore, found_count: s.foundCount } : null,
        gateway: provenanceOf('miss', at, at),
      };
    } catch (error) {
      if (error instanceof ApiError) {
        if (error.kind === 'bad-request') throw new HttpFailure(400, error.message);
        if (error.lostAfterSend) await ledger.refresh().catch(() => {});
        throw upstreamFailure(error);
      }
      throw error;
    } finally {
      await ledger.settle(worst, spent).catch(() => {});
    }
  });

  app.get('/api/v1/account', async (request, reply) => {
    const token = await authenticate(request, reply);
    if (!token) return reply;
    return accountBody(token);
  });

  app.get('/api/v1/test-key', async (request, reply) => {
    const token = await authenticate(request, reply);
    if (!token) return reply;
    const account = await accountBody(token);
    return {
      success: true,
      message: 'Gateway token is valid. This check consumed no requests.',
      timestamp: new Date(now()).toISOString(),
      organization_id: account.organization_id,
      api_key_info: account.api_key,
    };
  });

  /** The analyst's view: their token as `api_key`, the team's pool as `organization_quota`. */
  async function accountBody(token: TokenRecord) {
    const state = await guardStore(() => ledger.current().catch(async (error: unknown) => {
      const cached = await store.getLedger();
      if (cached) return cached;
      throw error instanceof ApiError ? upstreamFailure(error) : error;
    }));
    const usage = await guardStore(() => store.usageOf(token.name, dayOf(now())));
    const organization = ledger.lastAccount ? limitsFromAccount(ledger.lastAccount) : null;
    const teamUsed = state.usage + state.reserved;
    const allowed = ledger.allowed(state);
    return {
      counts_toward_quota: false,
      request_cost: 0,
      organization_id: state.organizationId,
      api_key: {
        uid: token.hash.slice(0, 16),
        name: token.name,
        current_usage: usage,
        max_api_requests: token.budget,
        created_at: new Date(token.createdAt).toISOString(),
      },
      organization_quota: {
        total_usage: state.usage + state.reserved,
        total_quota: state.limit,
        current_usage: state.usage + state.reserved,
        max_api_requests: state.limit,
        allocated_api_key_quota: null,
        available_api_key_quota: null,
        source: organization?.scope === 'key' ? 'gateway (organisation key limit)' : 'gateway',
        unlimited: state.limit === null,
      },
      // Additive, read by the extension's quota meter on a team; the API has no such field.
      gateway: {
        analyst: { name: token.name, used_today: usage, daily_budget: token.budget, day: dayOf(now()) },
        team: {
          used: teamUsed,
          limit: state.limit,
          reserve_percent: settings.reservePercent,
          allowed: allowed === null ? null : Math.floor(allowed),
          reserve_reached: allowed !== null && teamUsed >= Math.floor(allowed),
        },
      },
    };
  }

  registerDashboard(app, { checks: { settings: dashboard, store, adminOidc, now }, stats, store });
  stats.start();

  registerSignIn(app, { store, sessions, oidc: parts.oidc ?? null, signIn: parts.signIn ?? null, now, ...(parts.fetch ? { fetch: parts.fetch } : {}) });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const storeOk = await withTimeout(store.ping(), 1_000).then(
      () => true,
      () => false,
    );
    const ledgerState = storeOk ? await store.getLedger().catch(() => null) : null;
    const upstreamOk = await ledger.current().then(
      () => true,
      () => false,
    );
    const ready = storeOk && upstreamOk && !draining;
    if (ledgerState) {
      const allowed = ledger.allowed(ledgerState);
      metrics.quotaLeft.set(allowed === null ? -1 : Math.max(0, allowed - ledgerState.usage - ledgerState.reserved));
    }
    return reply.code(ready ? 200 : 503).send({
      status: ready ? 'ready' : 'not ready',
      store: { kind: store.kind, ok: storeOk },
      upstream: { ok: upstreamOk },
      draining,
    });
  });
  app.get('/metrics', async (_request, reply) => {
    const state = await store.getLedger().catch(() => null);
    if (state) {
      const allowed = ledger.allowed(state);
      metrics.quotaLeft.set(allowed === null ? -1 : Math.max(0, allowed - state.usage - state.reserved));
    }
    return reply.header('Content-Type', metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  return {
    app,
    core,
    ledger,
    metrics,
    stats,
    async close() {
      draining = true;
      const closing = app.close();
      // Connections that went idle after their last answer are closed as they appear.
      const sweep = setInterval(() => app.server.closeIdleConnections?.(), 100);
      await closing.finally(() => clearInterval(sweep));
      await stats.stop();
      await core.stop();
      await sightings.drain();
      await store.close();
    },
  };
}

function rateLimited(retryAfterMs: number): HttpFailure {
  return new HttpFailure(429, MESSAGES.rateLimited, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) });
}

/**
 * A store that cannot be reached fails the request closed (503): without it the gateway can
 * neither check a token nor know whether another replica is buying the same IP.
 */
async function guardStore<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HttpFailure || error instanceof ApiError) throw error;
    throw new HttpFailure(503, MESSAGES.storeDown, { 'Retry-After': '5' });
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timeout')), ms);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error)),
    );
  });
}

function redactError(upstream: Upstream, error: unknown) {
  const message = error instanceof Error ? error.message : String(error);
  return { message: upstream.redact(message), name: error instanceof Error ? error.name : 'Error' };
}
