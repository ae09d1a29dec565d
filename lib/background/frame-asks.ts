/**
 * What each frame was actually told: the IPs its content script looked up and got a "found"
 * answer for. The background trusts no content script (a compromised renderer or a page that
 * broke into its frame can send anything), so a frame's page summary counts in the toolbar
 * badge only the IPs this frame was really given a reputation for.
 *
 * Memory only, bounded: after the worker restarts, the badge also keeps what it had verified
 * for that frame before (see badge.ts), so an honest frame loses nothing.
 */
import { MemoryLru } from '../lookup/memory-lru';
import type { LookupResult } from '../lookup/types';

/** Frames remembered at once; the least recently active are forgotten first. */
const MAX_FRAMES = 300;
/** Found IPs remembered per frame (more than any page summary reports). */
const MAX_IPS_PER_FRAME = 20_000;

export interface FrameRef {
  tabId: number;
  frameId: number;
  documentId: string;
}

const keyOf = (f: FrameRef) => `${f.tabId}:${f.frameId}:${f.documentId}`;

export class FrameAsks {
  private readonly frames = new MemoryLru<string, Set<string>>(MAX_FRAMES);

  /** Notes the answers a frame was given. */
  note(frame: FrameRef, results: readonly LookupResult[]): void {
    const found = results.filter((r) => r.status === 'found');
    if (!found.length) return;
    const key = keyOf(frame);
    let ips = this.frames.get(key);
    if (!ips) {
      ips = new Set();
      this.frames.set(key, ips);
    }
    for (const r of found) {
      if (ips.size >= MAX_IPS_PER_FRAME) break;
      ips.add(r.ip);
    }
  }

  /** Whether the frame was given a reputation for this IP in this worker run. */
  wasTold(frame: FrameRef, ip: string): boolean {
    return this.frames.peek(keyOf(frame))?.has(ip) ?? false;
  }
}
