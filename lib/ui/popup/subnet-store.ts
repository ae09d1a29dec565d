/**
 * The popup's subnet check: a CIDR typed or pasted into the look-up box becomes an offer
 * ("Check this /24", with its worst-case cost) rather than a call; a block larger than the API
 * scans becomes a refusal with the documented limit and an offer to check the /24 (or /120)
 * that holds an IP the analyst picks. Nothing is sent until the analyst confirms.
 */
import { signal } from '@preact/signals';
import { apiLimitLabel, API_MAX_BLOCK, blockContains, blockOf, isWithinApiLimit, type CidrBlock } from '../../ip/cidr-block';
import { parseCidrInput } from '../../ip/find-cidrs';
import { normalizeIp } from '../../ip/normalize';
import type { SubnetReply } from '../../messaging';
import type { ReplyError } from '../../protocol';
import type { UiServices } from '../shared/services';

export type SubnetState =
  | { phase: 'idle' }
  /** Within the limit: shown with its cost, checked on confirmation. `host` when one was typed. */
  | { phase: 'offer'; block: CidrBlock; host: string | null }
  /** Above the limit: the analyst picks an IP in it; `pick` is the block holding that IP. */
  | { phase: 'too-large'; block: CidrBlock; pickText: string; pick: CidrBlock | null; pickError: string | null }
  | { phase: 'loading'; block: CidrBlock }
  | { phase: 'result'; reply: SubnetReply }
  | { phase: 'error'; block: CidrBlock; error: ReplyError };

/** The text of a refusal: the documented limit, in the family's terms. */
export function tooLargeMessage(block: CidrBlock): string {
  return `${block.cidr} is larger than ${apiLimitLabel(block.version)}: the API scans at most 256 addresses per request.`;
}

/**
 * `?subnet=203.0.113.0/24`: the hover card's "Check this /24", opened by the background in a
 * tab. Only a block is taken (offered, never checked: the analyst confirms here); null otherwise.
 */
export function subnetFromSearch(search: string): string | null {
  const asked = new URLSearchParams(search).get('subnet');
  return asked && parseCidrInput(asked) ? asked.trim() : null;
}

export function createSubnetStore(services: Pick<UiServices, 'send'>) {
  const state = signal<SubnetState>({ phase: 'idle' });
  let latest = 0;

  /** True when `input` is a CIDR block (then the look-up box does not treat it as an IP). */
  function offerFor(input: string): boolean {
    const parsed = parseCidrInput(input);
    if (!parsed) return false;
    latest++;
    const block: CidrBlock = { cidr: parsed.cidr, network: parsed.network, prefix: parsed.prefix, version: parsed.version };
    if (isWithinApiLimit(block)) {
      state.value = { phase: 'offer', block, host: parsed.hostBits ? parsed.address : null };
    } else {
      state.value = { phase: 'too-large', block, pickText: '', pick: null, pickError: null };
      pickIp(parsed.hostBits ? parsed.address : parsed.network);
    }
    return true;
  }

  /** In a refused block: the /24 (or /120) that holds the IP the analyst typed. */
  function pickIp(text: string): void {
    const current = state.value;
    if (current.phase !== 'too-large') return;
    const ip = normalizeIp(text);
    let pick: CidrBlock | null = null;
    let pickError: string | null = null;
    if (text.trim() === '') pickError = null;
    else if (!ip) pickError = `"${text.trim().slice(0, 60)}" is not an IP address.`;
    else if (!blockContains(current.block, ip)) pickError = `${ip} is not in ${current.block.cidr}.`;
    else {
      const holder = blockOf(ip, API_MAX_BLOCK[current.block.version])!;
      pick = { cidr: holder.cidr, network: holder.network, prefix: holder.prefix, version: holder.version };
    }
    state.value = { ...current, pickText: text, pick, pickError };
  }

  /** Checks the offered block (or the picked one inside a refused block). */
  async function check(): Promise<void> {
    const current = state.value;
    const block = current.phase === 'offer' ? current.block : current.phase === 'too-large' ? current.pick : current.phase === 'error' ? current.block : null;
    if (!block) return;
    const request = ++latest;
    state.value = { phase: 'loading', block };
    const reply = await services.send('ui:check-subnet', { cidr: block.cidr });
    if (request !== latest) return;
    state.value = reply.ok ? { phase: 'result', reply: reply.value } : { phase: 'error', block, error: reply.error };
  }

  function clear(): void {
    latest++;
    state.value = { phase: 'idle' };
  }

  return { state, offerFor, pickIp, check, clear };
}
export type SubnetStore = ReturnType<typeof createSubnetStore>;
