/**
 * The service's endpoints, as pure functions from a request to a reply and its quota cost.
 * Costs follow the spec's table and the documented rule "every 2xx and every 4xx except 404
 * increments the usage counter": checkIP 1, bulk and subnet 1 per IP found, export 1 per IP
 * exported, test-key 1, account 0, a 400 costs 1, a 404 is free.
 */
import type { Dataset } from './dataset';
import { canonicalIp, parseSubnet } from './ip';
import type { KeyStore, SimKeyState } from './keys';
import type { SimProfile } from './profiles';
import {
  MESSAGES,
  accountBody,
  bulkDataBody,
  cleanRowBody,
  errorBody,
  zeroHitDataBody,
  singleLookupBody,
  subnetRowBody,
  testKeyBody,
} from './wire';

export type NotFoundMode = '404' | 'clean-row';

export interface EndpointContext {
  query: URLSearchParams;
  /** The parsed JSON body of a POST: undefined when absent or not JSON. */
  body: unknown;
  /** Whether the request declared `Content-Type: application/json`. */
  jsonContentType: boolean;
  key: SimKeyState;
  store: KeyStore;
  dataset: Dataset;
  notFoundMode: NotFoundMode;
  profile: SimProfile;
  now: Date;
}

export interface Reply {
  status: number;
  body?: unknown;
  /** A non-JSON body (CSV export). */
  text?: { contentType: string; content: string };
  cost: number;
  /** IPs the request asked about, for the request log. */
  ips?: number;
}

export interface Endpoint {
  method: 'GET' | 'POST';
  /** Never costs quota, so it stays open when the usage limit is reached. */
  free?: boolean;
  handle(ctx: EndpointContext): Reply;
}

const badRequest = (message: string, ips = 0): Reply => ({ status: 400, body: errorBody(400, message), cost: 1, ips });

export const MAX_BULK_IPS = 100;

function checkIp(ctx: EndpointContext): Reply {
  const ip = ctx.query.get('ip');
  if (ip === null || ip.trim() === '') return badRequest(MESSAGES.ipRequired);
  if (!canonicalIp(ip)) return badRequest(MESSAGES.invalidIp, 1);
  const detailed = ctx.query.get('detailed') === 'true';
  const record = ctx.dataset.lookup(ip);
  if (record) return { status: 200, body: singleLookupBody(record, ip, detailed, ctx.profile), cost: 1, ips: 1 };
  if (ctx.notFoundMode === '404') return { status: 404, body: errorBody(404, MESSAGES.notFoundIp), cost: 0, ips: 1 };
  return { status: 200, body: cleanRowBody(ip, detailed, ctx.dataset.networkFor(ip), ctx.profile), cost: 1, ips: 1 };
}

function bulk(ctx: EndpointContext): Reply {
  const body = ctx.body as { ips?: unknown } | undefined;
  const ips = body && typeof body === 'object' && !Array.isArray(body) ? body.ips : undefined;
  if (!ctx.jsonContentType || !Array.isArray(ips) || ips.length === 0 || !ips.every((ip) => typeof ip === 'string')) {
    return badRequest(MESSAGES.invalidBody);
  }
  if (ips.length > MAX_BULK_IPS) return badRequest(MESSAGES.tooManyIps, ips.length);
  let found = 0;
  let failed = 0;
  const { profile } = ctx;
  const results = (ips as string[]).map((ip) => {
    // The odd profile garbles some rows' ip: the client may match them only by position.
    const echo = profile.nullIpRows.includes(canonicalIp(ip) ?? '') ? null : ip;
    if (!canonicalIp(ip)) return failed++, { ip: echo, data: null, error: MESSAGES.invalidIp };
    const record = ctx.dataset.lookup(ip);
    if (!record) {
      // Documented example: no hits is a data row, not a failure, and "only IPs found" are billed.
      if (profile.zeroHitRows) return { ip: echo, data: zeroHitDataBody(ip), error: null };
      return failed++, { ip: echo, data: null, error: profile.notFoundRowText };
    }
    found++;
    return { ip: echo, data: bulkDataBody(record, ip, profile), error: null };
  });
  return {
    status: 200,
    body: { results, total: ips.length, successful: ips.length - failed, failed },
    cost: found,
    ips: ips.length,
  };
}

function testKey(ctx: EndpointContext): Reply {
  // The answer reports the usage including this very call.
  const after = { ...ctx.key, currentUsage: ctx.key.currentUsage + 1 };
  return { status: 200, body: testKeyBody(after, ctx.now), cost: 1 };
}

function account(ctx: EndpointContext): Reply {
  return { status: 200, body: accountBody(ctx.key, ctx.store), cost: 0 };
}

function checkSubnet(ctx: EndpointContext): Reply {
  const cidr = ctx.query.get('cidr');
  if (cidr === null || cidr.trim() === '') return badRequest(MESSAGES.cidrRequired);
  const parsed = parseSubnet(cidr);
  if (!parsed.ok) return badRequest(parsed.reason === 'too-large' ? MESSAGES.cidrTooLarge : MESSAGES.invalidCidr);
  const { scan } = parsed;
  const records = scan.hosts.map((ip) => ctx.dataset.lookup(ip)).filter((r) => r !== null);
  const malicious = records.filter((r) => r.ipRep !== undefined && r.ipRep !== 'clean').length;
  const scoreSum = records.reduce((sum, r) => sum + r.score, 0);
  return {
    status: 200,
    body: {
      cidr: cidr.trim(),
      network: scan.network,
      broadcast: scan.broadcast,
      total_ips: scan.hosts.length,
      results: records.map(subnetRowBody),
      summary: {
        total: scan.hosts.length,
        malicious,
        clean: scan.hosts.length - malicious,
        average_score: Math.round((scoreSum / scan.hosts.length) * 100) / 100,
        found_count: records.length,
      },
    },
    cost: records.length,
    ips: scan.hosts.length,
  };
}

/**
 * GET /export: its parameters are undocumented; this accepts `cidr` or a comma-separated `ips`
 * and `format=json|csv`, and charges 1 per exported IP as documented.
 */
function exportData(ctx: EndpointContext): Reply {
  const cidr = ctx.query.get('cidr');
  let ips: string[];
  if (cidr) {
    const parsed = parseSubnet(cidr);
    if (!parsed.ok) return badRequest(parsed.reason === 'too-large' ? MESSAGES.cidrTooLarge : MESSAGES.invalidCidr);
    ips = parsed.scan.hosts;
  } else {
    ips = (ctx.query.get('ips') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    if (ips.length === 0) return badRequest(MESSAGES.exportRequired);
  }
  const records = ips.map((ip) => ctx.dataset.lookup(ip)).filter((r) => r !== null);
  const rows = records.map(subnetRowBody);
  if (ctx.query.get('format') === 'csv') {
    const header = 'ip,threat_score,threat_level,last_attack,ip_rep,total_hits';
    const lines = rows.map((r) => [r.ip, r.threat_score, r.threat_level, r.last_attack ?? '', JSON.stringify(r.ip_rep), r.total_hits].join(','));
    return { status: 200, text: { contentType: 'text/csv; charset=utf-8', content: [header, ...lines].join('\n') + '\n' }, cost: rows.length, ips: ips.length };
  }
  return { status: 200, body: { total: rows.length, results: rows }, cost: rows.length, ips: ips.length };
}

export const ENDPOINTS: Record<string, Endpoint> = {
  '/checkIP': { method: 'GET', handle: checkIp },
  '/checkIP/bulk': { method: 'POST', handle: bulk },
  '/test-key': { method: 'GET', handle: testKey },
  // Free ("counts_toward_quota": false): a key at its limit can still see why.
  '/account': { method: 'GET', free: true, handle: account },
  '/checkSubnet': { method: 'GET', handle: checkSubnet },
  '/export': { method: 'GET', handle: exportData },
};

/** The JSON 500 text differs per endpoint (spec section 7). */
export function internalErrorMessage(path: string): string {
  return path === '/checkIP' ? MESSAGES.checkIpInternal : MESSAGES.internal;
}
