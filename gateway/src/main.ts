/**
 * `npm run gateway`                      serve (configuration from GATEWAY_* variables)
 * `npm run gateway -- token add NAME [--budget N] [--expires DAYS]`
 * `npm run gateway -- token list`
 * `npm run gateway -- token revoke NAME`
 *
 * `token add` prints the new token alone on its last line of stdout, once; only its hash is kept.
 */
import { parseArgs } from 'node:util';
import pino from 'pino';
import { ConfigError, loadConfig } from './config';
import { openStore } from './open-store';
import { createGateway } from './server';
import { dayOf } from './store/types';
import { addToken } from './tokens';
import { createUpstream } from './upstream';

const USAGE = `Usage:
  npm run gateway                                   start the gateway
  npm run gateway -- token add NAME [--budget N] [--expires DAYS]
  npm run gateway -- token list
  npm run gateway -- token revoke NAME`;

async function tokenCommand(args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { budget: { type: 'string' }, expires: { type: 'string' } },
  });
  const [action, name] = positionals;
  const config = loadConfig(process.env, { needsKey: false });
  const store = await openStore(config);
  try {
    if (action === 'add' && name) {
      const budget = values.budget === undefined ? null : positiveInteger('--budget', values.budget);
      const expiresDays = values.expires === undefined ? null : positiveInteger('--expires', values.expires);
      const token = await addToken(store, name, { budget, expiresDays }, Date.now());
      process.stdout.write(`Token "${name}" created${budget === null ? '' : `, daily budget ${budget}`}${expiresDays === null ? '' : `, expires in ${expiresDays} days`}. It is shown once; only its hash is stored:\n${token}\n`);
      return 0;
    }
    if (action === 'list') {
      const tokens = await store.listTokens(dayOf(Date.now()));
      const when = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().slice(0, 16).replace('T', ' '));
      process.stdout.write(`${['NAME', 'CREATED', 'EXPIRES', 'LAST USED', 'USED TODAY', 'BUDGET'].join('\t')}\n`);
      for (const t of tokens) {
        process.stdout.write(`${[t.name, when(t.createdAt), when(t.expiresAt), when(t.lastUsedAt), t.usageToday, t.budget ?? '-'].join('\t')}\n`);
      }
      return 0;
    }
    if (action === 'revoke' && name) {
      if (!(await store.revokeToken(name))) {
        process.stderr.write(`No token named "${name}".\n`);
        return 1;
      }
      process.stdout.write(`Token "${name}" revoked.\n`);
      return 0;
    }
    process.stderr.write(`${USAGE}\n`);
    return 2;
  } finally {
    await store.close();
  }
}

function positiveInteger(option: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new ConfigError(`${option} must be a positive whole number (got "${value}").`);
  return n;
}

async function serve(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization', 'req.headers["x-api-key"]'] });
  const store = await openStore(config, (error) => logger.warn({ err: { message: error instanceof Error ? error.message : String(error) } }, 'store connection error'));
  const upstream = createUpstream({ baseUrl: config.upstreamUrl, apiKey: config.upstreamKey, timeoutMs: config.upstreamTimeoutMs, store });
  const gateway = await createGateway({ settings: config, store, upstream, logger, https: config.tls, oidc: config.oidc, signIn: config.signIn, dashboard: config.dashboard });
  await gateway.app.listen({ host: config.host, port: config.port });
  logger.info({ store: store.kind, upstream: new URL(config.upstreamUrl).origin, tls: !!config.tls, sso: config.oidc ? config.oidc.issuer : false, dashboard: !!(config.dashboard.adminTokenHash || config.dashboard.adminGroup) }, 'gateway listening');
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining in-flight requests');
    gateway.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function main(argv: string[]): Promise<number> {
  try {
    if (argv[0] === 'token') return await tokenCommand(argv.slice(1));
    if (argv.length) {
      process.stderr.write(`${USAGE}\n`);
      return 2;
    }
    await serve();
    return -1;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${message}\n`);
    return 1;
  }
}

void main(process.argv.slice(2)).then((code) => {
  if (code >= 0) process.exit(code);
});
