/**
 * `npm run sim -- --port 8787 [--host 127.0.0.1] [--static DIR] [--not-found-mode clean-row]
 * [--seed S] [--prefix /api/v1] [--profile spec|docs|odd|org-pool]`: starts the simulator, prints its base URL and keys, and stops
 * on Ctrl-C / SIGTERM.
 */
import { parseArgs } from 'node:util';
import { ALL_PROFILE_NAMES, isProfileName, PROFILES } from './profiles';
import { startSimulator } from './server';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8787' },
    host: { type: 'string', default: '127.0.0.1' },
    static: { type: 'string' },
    'not-found-mode': { type: 'string' },
    profile: { type: 'string', default: 'spec' },
    seed: { type: 'string' },
    prefix: { type: 'string' },
  },
});

const notFoundMode = values['not-found-mode'];
if (notFoundMode !== undefined && notFoundMode !== '404' && notFoundMode !== 'clean-row') {
  console.error(`--not-found-mode must be 404 or clean-row, not "${notFoundMode}"`);
  process.exit(2);
}
const profile = values.profile;
if (!isProfileName(profile)) {
  console.error(`--profile must be one of ${ALL_PROFILE_NAMES.join(', ')}, not "${profile}"`);
  process.exit(2);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`--port must be a port number, not "${values.port}"`);
  process.exit(2);
}

const sim = await startSimulator({
  port,
  host: values.host,
  profile,
  ...(notFoundMode ? { notFoundMode } : {}),
  ...(values.static ? { staticDir: values.static } : {}),
  ...(values.seed ? { seed: values.seed } : {}),
  ...(values.prefix ? { apiPrefix: values.prefix } : {}),
});

console.log(`API simulator listening\n  base URL: ${sim.baseUrl}\n  admin:    ${sim.origin}/__sim/state`);
if (values.static) console.log(`  pages:    ${sim.origin}/pages/  (from ${values.static})`);
console.log(`  profile:  ${sim.profile}  (answers where the documentation leaves room: test/sim/profiles.ts)`);
console.log(`  checkIP for unknown IPs: ${(notFoundMode ?? PROFILES[profile].notFoundMode) === '404' ? '404 (free)' : '200 clean row'}\n\nKeys:`);
console.table(
  sim.keys.map((k) => ({
    key: k.key,
    name: k.name,
    limit: k.maxApiRequests ?? 'organisation',
    organisation: k.organizationId,
    state: k.expired ? 'expired' : 'active',
  })),
);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the simulator.`);
  sim.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
