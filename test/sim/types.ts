/** Public types of the simulator (server.ts), shared with the admin endpoints and the CLI. */
import type { Dataset } from './dataset';
import type { NotFoundMode } from './endpoints';
import type { ConsumableFault, SimFaults } from './faults';
import type { IpLog } from './ip-log';
import type { KeyPatch, SimKeyConfig, SimKeyState, SimOrganization } from './keys';
import type { ProfileName } from './profiles';

export interface SimulatorOptions {
  /** 0 (default): a free port. */
  port?: number;
  /** Default 127.0.0.1: loopback only. */
  host?: string;
  /** Default DEFAULT_KEYS (keys.ts). */
  keys?: SimKeyConfig[];
  organizations?: SimOrganization[];
  /** What checkIP answers for an IP not in the database. Default: the profile's ('404', free). */
  notFoundMode?: NotFoundMode;
  /** How the server answers where the documentation leaves room (profiles.ts). Default `spec`. */
  profile?: ProfileName;
  /** Default `/api/v1`. */
  apiPrefix?: string;
  /** Seed of the generated dataset. Default DEFAULT_SEED. */
  seed?: string;
  /** Served under `/pages/`. */
  staticDir?: string;
  /** Faults active from the start. */
  faults?: SimFaults;
  /** Most recent log entries kept. Default 10,000. */
  logLimit?: number;
  /** Timers for latencies (the real ones by default; tests of simulated minutes pass a fake clock). */
  timers?: SimTimers;
}

export interface SimTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface RequestLogEntry {
  /** Epoch ms when the request arrived. */
  time: number;
  method: string;
  /** Endpoint below the API prefix, e.g. `/checkIP/bulk`. */
  path: string;
  key: string | null;
  /** Which header carried the key. */
  auth: 'authorization' | 'x-api-key' | null;
  /** IPs the request asked about (bulk: the array length). */
  ips: number;
  /** 0 when the connection was dropped on purpose. */
  status: number;
  /** Quota units charged to the key. */
  cost: number;
  fault?: ConsumableFault;
}

export interface Simulator {
  /** e.g. `http://127.0.0.1:PORT/api/v1` */
  readonly baseUrl: string;
  /** e.g. `http://127.0.0.1:PORT` */
  readonly origin: string;
  readonly port: number;
  readonly dataset: Dataset;
  /** A snapshot of every key with its usage. */
  readonly keys: SimKeyState[];
  /** Current usage of a key (0 for an unknown key). */
  usage(key: string): number;
  /** Live, oldest first. */
  readonly requestLog: readonly RequestLogEntry[];
  /** The answer profile in use (profiles.ts). */
  readonly profile: ProfileName;
  /** Switches profile: its keys (usage back to the start), answers and texts; faults and log cleared. */
  setProfile(name: ProfileName): void;
  /** Which IPs each lookup request asked about and when 2xx answers went out (see ip-log.ts). */
  readonly ipLog: IpLog;
  setFaults(faults: SimFaults): void;
  /** Latencies wait on these timers from now on (null: back to those the simulator started with). */
  useTimers(timers: SimTimers | null): void;
  clearFaults(): void;
  faults(): SimFaults;
  /** Creates or updates a key (usage, limit, expiry...). */
  setKey(key: string, patch: KeyPatch): SimKeyState;
  /** Usage back to the initial values, log emptied, faults cleared. */
  reset(): void;
  close(): Promise<void>;
}
