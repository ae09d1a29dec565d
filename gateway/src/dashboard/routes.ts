/**
 * The team dashboard's routes, all same-origin under /dashboard:
 *   GET /dashboard             the page (static: no data in it, so no credential needed)
 *   GET /dashboard/app.js|css  its script and style (bundle.ts)
 *   GET /dashboard/api/summary the numbers, behind the admin token or the SSO admin group
 * Every response carries a strict Content-Security-Policy: scripts and styles from this origin
 * only, no inline script, no framing, and the page may only talk back to this gateway.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { credentialOf } from '../tokens';
import { errorBody } from '../wire';
import type { Store } from '../store/types';
import { ADMIN_MESSAGES, checkAdmin, dashboardOn, type AdminChecks } from './admin-auth';
import { dashboardAssets } from './bundle';
import type { TeamStats } from './team-stats';

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Team dashboard · IP Reputation Lens gateway</title>
<link rel="stylesheet" href="/dashboard/app.css">
<script type="module" src="/dashboard/app.js"></script>
</head>
<body>
<div id="app"><main><h1>Team dashboard</h1><p>This page needs JavaScript.</p></main></div>
</body>
</html>
`;

/** Failed admin-token guesses one address may make a minute before it is slowed down. */
const BAD_ADMIN_PER_MINUTE = 10;
const DEFAULT_DAYS = 14;

export interface DashboardDeps {
  checks: AdminChecks;
  stats: TeamStats;
  store: Store;
}

function secure(reply: FastifyReply) {
  return reply
    .header('Content-Security-Policy', DASHBOARD_CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cross-Origin-Opener-Policy', 'same-origin')
    .header('Cross-Origin-Resource-Policy', 'same-origin');
}

export function registerDashboard(app: FastifyInstance, { checks, stats, store }: DashboardDeps) {
  const off = (reply: FastifyReply) => secure(reply).code(404).send(errorBody(404, ADMIN_MESSAGES.off));

  app.get('/dashboard', async (_request, reply) => {
    if (!dashboardOn(checks.settings, checks.adminOidc)) return off(reply);
    return secure(reply).header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(PAGE);
  });
  app.get('/dashboard/', async (_request, reply) => reply.redirect('/dashboard', 301));
  app.get('/dashboard/app.js', async (_request, reply) => {
    if (!dashboardOn(checks.settings, checks.adminOidc)) return off(reply);
    return secure(reply).header('Cache-Control', 'no-cache').type('text/javascript; charset=utf-8').send((await dashboardAssets()).js);
  });
  app.get('/dashboard/app.css', async (_request, reply) => {
    if (!dashboardOn(checks.settings, checks.adminOidc)) return off(reply);
    return secure(reply).header('Cache-Control', 'no-cache').type('text/css; charset=utf-8').send((await dashboardAssets()).css);
  });

  app.get('/dashboard/api/summary', async (request, reply) => {
    secure(reply).header('Cache-Control', 'no-store');
    const checked = await checkAdmin(checks, credentialOf(request.headers));
    if (!checked.ok) {
      if (checked.counts) {
        const slow = await store.rateLimit(`bad-admin:${request.ip}`, BAD_ADMIN_PER_MINUTE, 60_000).catch(() => ({ allowed: true, retryAfterMs: 0 }));
        if (!slow.allowed) {
          return reply
            .code(429)
            .header('Retry-After', String(Math.max(1, Math.ceil(slow.retryAfterMs / 1000))))
            .send(errorBody(429, 'Too many wrong admin tokens from this address: wait a minute.'));
        }
      }
      if (checked.status === 401) reply.header('WWW-Authenticate', 'Bearer realm="gateway-dashboard"');
      return reply.code(checked.status).send(errorBody(checked.status, checked.message));
    }
    const raw = (request.query as Record<string, unknown>).days;
    const days = raw === undefined ? DEFAULT_DAYS : Number(raw);
    if (!Number.isInteger(days) || days < 1) return reply.code(400).send(errorBody(400, '"days" must be a whole number of days, 1 or more.'));
    request.log.info({ audit: 'dashboard', who: checked.who, days }, 'dashboard read');
    return reply.send(await stats.summary(days));
  });
}
