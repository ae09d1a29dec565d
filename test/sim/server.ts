/**
 * The API simulator: a real HTTP server on loopback that behaves as `spec/ip-threat-api.md` and
 * `spec/public-docs-notes.md` describe, with quota accounting, fault injection, an admin API
 * (`/__sim/`) and fixture pages (`/pages/`). A test double: nothing in lib/ may import it.
 *
 *   const sim = await startSimulator();            // random port
 *   createApiClient({ baseUrl: sim.baseUrl, apiKey: DEMO_KEY, authHeader: 'authorization' });
 *
 * Order of checks for an API request: latency fault → unknown endpoint (404, free) → key
 * missing (401) / invalid / expired / usage limit reached (403; not for the free /account) →
 * method (405) → consumable faults → the endpoint. Refused-at-the-door 401/403 answers cost
 * nothing: there is no key to charge, or charging would push usage past the limit it is
 * refused for, which the docs ("reaching it gives 403") do not suggest. Every other 4xx except
 * 404 costs 1 (the documented rule), including a 429.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleAdmin } from './admin';
import { createDataset, DEFAULT_SEED } from './dataset';
import { ENDPOINTS, internalErrorMessage, type Reply } from './endpoints';
import { FaultStore, type FiredFault } from './faults';
import { IpLog, ipsOfRequest } from './ip-log';
import { DEFAULT_KEYS, DEFAULT_ORGANIZATIONS, KeyStore } from './keys';
import { isProfileName, mergeById, PROFILES, type ProfileName, type SimProfile } from './profiles';
import { notFound, serveStatic } from './static';
import type { RequestLogEntry, Simulator, SimulatorOptions, SimTimers } from './types';
import { errorBody, MESSAGES, testKeyMissingBody } from './wire';

export type { RequestLogEntry, Simulator, SimulatorOptions } from './types';

const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, X-API-Key, Content-Type',
  'Access-Control-Expose-Headers': 'Retry-After',
  'Access-Control-Max-Age': '600',
};

const MAX_BODY_BYTES = 1_000_000;

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const prefix = (options.apiPrefix ?? '/api/v1').replace(/\/+$/, '');
  const host = options.host ?? '127.0.0.1';
  const logLimit = options.logLimit ?? 10_000;
  const dataset = createDataset(options.seed ?? DEFAULT_SEED);
  let profile: SimProfile = PROFILES.spec;
  let notFoundMode = options.notFoundMode ?? '404';
  let store = new KeyStore(options.keys ?? DEFAULT_KEYS, options.organizations ?? DEFAULT_ORGANIZATIONS);
  /** A profile brings its own keys and answers; usage starts again from the initial values. */
  const useProfile = (name: ProfileName) => {
    profile = PROFILES[name];
    notFoundMode = options.notFoundMode ?? profile.notFoundMode;
    store = new KeyStore(
      mergeById(options.keys ?? DEFAULT_KEYS, profile.keys, (k) => k.key),
      mergeById(options.organizations ?? DEFAULT_ORGANIZATIONS, profile.organizations, (o) => o.id),
    );
  };
  if (options.profile) useProfile(options.profile);
  let timers: SimTimers = options.timers ?? REAL_TIMERS;
  const faults = new FaultStore();
  if (options.faults) faults.set(structuredClone(options.faults));
  const log: RequestLogEntry[] = [];
  const ipLog = new IpLog();

  const record = (entry: RequestLogEntry) => {
    log.push(entry);
    if (log.length > logLimit) log.splice(0, log.length - logLimit);
  };

  async function handleApi(req: IncomingMessage, res: ServerResponse, endpointPath: string, url: URL, rawBody: string) {
    const latency = faults.latencyFor(endpointPath);
    if (latency > 0 && !(await delay(latency, res, timers))) return;

    const { key, auth } = extractKey(req);
    const asks = ipLog.asked(endpointPath, ipsOfRequest(endpointPath, url.searchParams, parseJson(rawBody)));
    const entry: RequestLogEntry = { time: Date.now(), method: req.method ?? 'GET', path: endpointPath, key, auth, ips: 0, status: 0, cost: 0 };
    /** `chargedBefore`: units the request was billed before its answer was replaced by a fault. */
    const finish = (reply: Reply, fault?: FiredFault, extraHeaders: Record<string, string> = {}, chargedBefore = 0) => {
      if (key && reply.cost > 0) store.charge(key, reply.cost);
      record({ ...entry, status: reply.status, cost: reply.cost + chargedBefore, ips: reply.ips ?? 0, ...(fault ? { fault: fault.type } : {}) });
      ipLog.answered(asks, reply.status, res);
      if (reply.text) {
        res.writeHead(reply.status, { 'Content-Type': reply.text.contentType, ...extraHeaders });
        res.end(reply.text.content);
      } else {
        res.writeHead(reply.status, { 'Content-Type': 'application/json; charset=utf-8', ...extraHeaders });
        res.end(JSON.stringify(reply.body));
      }
    };

    const endpoint = ENDPOINTS[endpointPath];
    if (!endpoint) return finish(missingRoute(req.url ?? endpointPath));

    if (!key) {
      const body = endpointPath === '/test-key' ? testKeyMissingBody() : errorBody(401, MESSAGES.missingKey);
      return finish({ status: 401, body, cost: 0 });
    }
    const check = store.check(key);
    if (check !== 'ok' && !(check === 'quota' && endpoint.free)) {
      const { texts } = profile;
      const message = check === 'expired' ? texts.expiredKey : check === 'quota' ? texts.quota : texts.invalidKey;
      return finish({ status: 403, body: errorBody(403, message), cost: 0 });
    }
    if (req.method !== endpoint.method) return finish({ status: 405, body: errorBody(405, MESSAGES.methodNotAllowed), cost: 1 });

    const breakage = endpointPath === '/checkIP/bulk' ? profile.bulkBreakage : undefined;
    if (breakage?.mode === '503') {
      const content = '<!doctype html><html><head><title>503 Service Unavailable</title></head><body><h1>503 Service Unavailable</h1></body></html>';
      return finish({ status: 503, text: { contentType: 'text/html; charset=utf-8', content }, cost: 0 });
    }
    if (breakage?.mode === '429') {
      const headers: Record<string, string> = breakage.retryAfterSeconds !== undefined ? { 'Retry-After': String(breakage.retryAfterSeconds) } : {};
      return finish({ status: 429, body: errorBody(429, MESSAGES.rateLimited), cost: 1 }, undefined, headers);
    }
    if (breakage?.mode === 'slow') {
      // Served and billed on arrival; the answer leaves after the latency, if anyone still listens.
      const reply = serve();
      if (reply.cost > 0) store.charge(key, reply.cost);
      if (!(await delay(breakage.latencyMs, res, timers))) {
        record({ ...entry, cost: reply.cost, ips: reply.ips ?? 0 });
        return;
      }
      return finish({ ...reply, cost: 0 }, undefined, {}, reply.cost);
    }

    const fault = faults.consume(endpointPath);
    if (fault?.type === 'redirect') {
      return finish({ status: fault.status, body: { moved: fault.location }, cost: 0 }, fault, { Location: fault.location });
    }
    // Served and billed, then the answer is lost on the way back (a gateway 502, a reset).
    const charged = (fault?.type === 'dropConnection' || fault?.type === 'serverError') && fault.afterCharge;
    const cost = charged ? serve().cost : 0;
    if (charged && key && cost > 0) store.charge(key, cost);
    if (fault?.type === 'dropConnection') {
      record({ ...entry, cost, fault: fault.type });
      req.socket.destroy();
      return;
    }
    if (fault?.type === 'serverError') {
      // Any charge happened above: the error itself costs nothing more.
      if (!fault.html) return finish({ status: fault.status, body: errorBody(fault.status, internalErrorMessage(endpointPath)), cost: 0 }, fault, {}, cost);
      const title = `${fault.status} ${fault.status === 502 ? 'Bad Gateway' : fault.status === 503 ? 'Service Unavailable' : 'Internal Server Error'}`;
      const html = `<!doctype html><html><head><title>${title}</title></head><body><center><h1>${title}</h1></center><hr><center>nginx</center></body></html>`;
      return finish({ status: fault.status, text: { contentType: 'text/html; charset=utf-8', content: html }, cost: 0 }, fault, {}, cost);
    }
    if (fault?.type === 'rateLimit') {
      const headers: Record<string, string> = {};
      if (fault.retryAfterSeconds !== undefined) {
        headers['Retry-After'] = fault.retryAfterAsDate
          ? new Date(Date.now() + fault.retryAfterSeconds * 1000).toUTCString()
          : String(fault.retryAfterSeconds);
      }
      if (fault.plainText) {
        const content = 'Too many requests: slow down and retry in a minute.';
        return finish({ status: 429, text: { contentType: 'text/plain; charset=utf-8', content }, cost: 1 }, fault, headers);
      }
      return finish({ status: 429, body: errorBody(429, MESSAGES.rateLimited), cost: 1 }, fault, headers);
    }
    if (fault?.type === 'invalidJson') {
      return finish({ status: 200, text: { contentType: 'application/json; charset=utf-8', content: '{"message":"IP found!","details":{"score":9' }, cost: 1 }, fault);
    }

    finish(changeShape(serve()));

    /** The schemaChange fault: the same answer, billed the same, in a shape the client does not know. */
    function changeShape(reply: Reply): Reply {
      const change = faults.current().schemaChange;
      if (!change || reply.status !== 200 || !reply.body || typeof reply.body !== 'object') return reply;
      const body = reply.body as Record<string, unknown>;
      if (endpointPath === '/checkIP/bulk') {
        const rows = Array.isArray(body.results) ? (body.results as Record<string, unknown>[]) : [];
        if (change === 'envelope') {
          const { results, ...rest } = body;
          return { ...reply, body: { ...rest, items: results } };
        }
        const changed = rows.map((row) => ({ ...row, data: { score: { value: 87, scale: 100 }, total_hits: 'many', threat_level: 3 } }));
        return { ...reply, body: { ...body, results: changed } };
      }
      if (endpointPath === '/checkIP' && change === 'envelope') {
        const { details, ...rest } = body;
        return { ...reply, body: { ...rest, detail: details } };
      }
      return reply;
    }

    function serve(): Reply {
      return endpoint!.handle({
        query: url.searchParams,
        body: parseJson(rawBody),
        jsonContentType: /^application\/json\b/i.test(req.headers['content-type'] ?? ''),
        key: store.get(key!)!,
        store,
        dataset,
        notFoundMode,
        profile,
        now: new Date(),
      });
    }
  }

  /** A route missing below the prefix, as the profile's server framework answers it (free). */
  function missingRoute(path: string): Reply {
    switch (profile.missingRoute) {
      case 'framework-json': {
        // Nuxt / h3's own 404: statusCode + statusMessage, no `error: true`.
        const text = `Page Not Found: ${path}`;
        return { status: 404, body: { url: path, statusCode: 404, statusMessage: text, message: text, stack: [] }, cost: 0 };
      }
      case 'html':
        return { status: 404, text: { contentType: 'text/html; charset=utf-8', content: '<!doctype html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>' }, cost: 0 };
      default:
        return { status: 404, body: errorBody(404, MESSAGES.notFound), cost: 0 };
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    for (const [name, value] of Object.entries(CORS_HEADERS)) res.setHeader(name, value);
    if (req.method === 'OPTIONS') {
      res.writeHead(204);
      return res.end();
    }
    const url = new URL(req.url ?? '/', 'http://sim.invalid');
    const pathname = url.pathname;
    const rawBody = await readBody(req);
    if (rawBody === null) {
      res.writeHead(413, { 'Content-Type': 'application/json; charset=utf-8' });
      return res.end(JSON.stringify(errorBody(413, 'Payload too large')));
    }

    if (pathname.startsWith('/__sim/')) {
      return handleAdmin(simulator, store, { method: req.method ?? 'GET', path: pathname, body: parseJson(rawBody) }, res);
    }
    if (pathname.startsWith('/pages/') && options.staticDir) {
      return serveStatic(options.staticDir, pathname.slice('/pages/'.length), res, req.method === 'HEAD');
    }
    if (pathname === '/captive' || pathname.startsWith('/captive/')) {
      // A captive portal or SSO page answering 200 HTML for anything: what a wrong base URL looks like.
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return res.end('<!doctype html><html><head><title>Sign in to the network</title></head><body><form>Wi-Fi login</form></body></html>');
    }
    if (pathname === prefix || pathname.startsWith(`${prefix}/`)) {
      return handleApi(req, res, pathname.slice(prefix.length) || '/', url, rawBody);
    }
    notFound(res);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(errorBody(500, `Simulator bug: ${String(error)}`)));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const simulator: Simulator = {
    baseUrl: `${origin}${prefix}`,
    origin,
    port,
    dataset,
    get keys() {
      return store.all();
    },
    usage: (key) => store.get(key)?.currentUsage ?? 0,
    get requestLog() {
      return log;
    },
    get profile() {
      return profile.name;
    },
    setProfile(name) {
      if (!isProfileName(name)) throw new Error(`Unknown simulator profile "${String(name)}"`);
      useProfile(name);
      faults.clear();
      log.length = 0;
    },
    ipLog,
    setFaults: (f) => faults.set(structuredClone(f)),
    useTimers: (t) => void (timers = t ?? options.timers ?? REAL_TIMERS),
    clearFaults: () => faults.clear(),
    faults: () => faults.current(),
    setKey: (key, patch) => store.set(key, patch),
    reset() {
      store.reset();
      faults.clear();
      log.length = 0;
      ipLog.reset();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
  return simulator;
}

function extractKey(req: IncomingMessage): { key: string | null; auth: RequestLogEntry['auth'] } {
  // Which header wins when both are sent is not documented: Authorization is checked first.
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (bearer) return { key: bearer[1]!, auth: 'authorization' };
  const header = req.headers['x-api-key'];
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (value) return { key: value, auth: 'x-api-key' };
  return { key: null, auth: null };
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const REAL_TIMERS: SimTimers = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

/** Resolves false when the client went away during the wait (its timeout fired). */
function delay(ms: number, res: ServerResponse, timers: SimTimers): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = timers.setTimeout(() => {
      res.off('close', onClose);
      resolve(true);
    }, ms);
    const onClose = () => {
      timers.clearTimeout(timer);
      resolve(false);
    };
    res.once('close', onClose);
  });
}
