/**
 * Real redis-server processes for the gateway's integration tests: each on a free loopback
 * port, in memory only (`--save '' --appendonly no`), stopped by the test that started it.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const REDIS_SERVER = process.env.REDIS_SERVER ?? 'redis-server';
const REDIS_CLI = process.env.REDIS_CLI ?? (REDIS_SERVER.includes('/') ? path.join(path.dirname(REDIS_SERVER), 'redis-cli') : 'redis-cli');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface RedisProcess {
  port: number;
  url: string;
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop). */
  restart(): Promise<void>;
}

async function waitForPing(port: number) {
  for (let i = 0; i < 100; i++) {
    try {
      const { stdout } = await run(REDIS_CLI, ['-p', String(port), 'ping']);
      if (stdout.trim() === 'PONG') return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server on port ${port} did not start`);
}

export async function startRedis(extra: string[] = []): Promise<RedisProcess> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-redis-'));
  let child: ChildProcess | null = null;
  const launch = async () => {
    child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extra], { stdio: 'ignore' });
    await waitForPing(port);
  };
  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      const c = child as ChildProcess | null;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await exited;
      child = null;
    },
    restart: launch,
  };
}

export interface RedisCluster {
  urls: string[];
  stop(): Promise<void>;
}

export async function startCluster(nodes = 3): Promise<RedisCluster> {
  const servers = await Promise.all(Array.from({ length: nodes }, () => startRedis(['--cluster-enabled', 'yes', '--cluster-node-timeout', '2000'])));
  await run(REDIS_CLI, ['--cluster', 'create', ...servers.map((s) => `127.0.0.1:${s.port}`), '--cluster-replicas', '0', '--cluster-yes']);
  // Wait until every node agrees the cluster is up.
  for (const s of servers) {
    for (let i = 0; i < 100; i++) {
      const { stdout } = await run(REDIS_CLI, ['-p', String(s.port), 'cluster', 'info']);
      if (stdout.includes('cluster_state:ok')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    urls: servers.map((s) => s.url),
    async stop() {
      await Promise.all(servers.map((s) => s.stop()));
    },
  };
}

export function cleanup(dir: string) {
  rmSync(dir, { recursive: true, force: true });
}
