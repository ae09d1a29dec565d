/**
 * Timing and heap helpers for the extraction bench. The machine is shared and noisy: times
 * are this process's CPU time (process.cpuUsage), not wall time, which counts the moments other
 * jobs held the cores; every figure is a median of interleaved rounds, and comparisons are
 * ratios from one process.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** CPU milliseconds (user + system) that `fn` took. */
export function cpuMs(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export const megabytes = (chars: number) => chars / 1e6;

/** Heap in MB after a full collection. */
export function settledHeapMb(): number {
  collect();
  return process.memoryUsage().heapUsed / 1e6;
}

export function heapMb(): number {
  return process.memoryUsage().heapUsed / 1e6;
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits).padStart(8);
