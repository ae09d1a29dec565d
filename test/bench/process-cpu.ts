/**
 * CPU time of the browser's processes, by kind, read from /proc (Linux): what one load of a
 * page costs outside the page's renderer (the storm's lookups: the extension's worker,
 * the browser process, the network and storage services, the GPU process) next to the page's
 * renderer. No trace: a trace slows the page and writes its own events from every process.
 * The bench process itself (Playwright, the simulator serving the lookups) is `bench`.
 */
import { readdirSync, readFileSync } from 'node:fs';

export const PROCESS_KINDS = ['renderer', 'extension', 'browser', 'gpu', 'utility', 'other', 'bench'] as const;
export type ProcessKind = (typeof PROCESS_KINDS)[number];
export type CpuSnapshot = Map<number, { kind: ProcessKind; ms: number }>;

/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on every Linux we run). */
const TICKS_PER_S = 100;

function kindOf(cmdline: string[]): ProcessKind {
  const type = cmdline.find((a) => a.startsWith('--type='))?.slice(7);
  if (type === 'renderer') return cmdline.includes('--extension-process') ? 'extension' : 'renderer';
  if (type === 'gpu-process') return 'gpu';
  if (type === 'utility') return 'utility';
  if (type === undefined && /chrom/i.test(cmdline[0] ?? '')) return 'browser';
  return 'other';
}

/** Every descendant of this process (the browser Playwright started, and its children), with its CPU so far. */
export function cpuSnapshot(): CpuSnapshot {
  const parents = new Map<number, number>();
  const cpu = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after the command (which may hold spaces): state, ppid, ..., utime (14), stime (15).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(name), Number(fields[1]));
      cpu.set(Number(name), ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S);
    } catch {
      // Gone meanwhile.
    }
  }
  const snapshot: CpuSnapshot = new Map();
  const own = process.cpuUsage();
  snapshot.set(process.pid, { kind: 'bench', ms: (own.user + own.system) / 1000 });
  const isOurs = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === process.pid) return true;
    return false;
  };
  for (const [pid, ms] of cpu) {
    if (!isOurs(pid)) continue;
    let cmdline: string[] = [];
    try {
      // Chromium's children rewrite their title: one string, arguments separated by spaces.
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
    } catch {
      continue;
    }
    snapshot.set(pid, { kind: kindOf(cmdline), ms });
  }
  return snapshot;
}

/** CPU ms spent between two snapshots, by kind (processes started meanwhile count from 0). */
export function cpuSpent(before: CpuSnapshot, after: CpuSnapshot): Record<ProcessKind, number> {
  const out = Object.fromEntries(PROCESS_KINDS.map((k) => [k, 0])) as Record<ProcessKind, number>;
  for (const [pid, { kind, ms }] of after) out[kind] += ms - (before.get(pid)?.ms ?? 0);
  return out;
}
