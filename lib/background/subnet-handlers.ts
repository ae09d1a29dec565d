/**
 * `ui:check-subnet`: the popup's "Check this /24". The block is read again here (the popup's
 * parse is a convenience, not a guarantee), refused before any call when it is no block or
 * larger than the API scans (a 400 would still cost a unit), then checked by the lookup
 * service, which caches every scanned address. Open pages that show any of those addresses
 * are told, and ask the cache: their marks update without another API call.
 *
 * `cs:open-subnet-check`: the hover card's "Check 203.0.113.0/24". A paid call is never made on
 * a content script's word (docs/architecture.md, "Threat model"): this message is free, and only
 * opens the popup page with the block in a new tab, where the analyst sees the worst-case cost
 * and the quota left and confirms; the call is then that page's `ui:check-subnet`. Even the
 * opening is bounded by what the browser attests: the API-sized block (/24, /120) of an IP this
 * frame asked about, from the tab in front, at most 3 at once then one every 20 s per tab.
 */
import { browser } from 'wxt/browser';
import { ApiError } from '../api/errors';
import { API_MAX_BLOCK, apiLimitLabel, blockContains, isWithinApiLimit } from '../ip/cidr-block';
import { parseCidrInput } from '../ip/find-cidrs';
import { systemClock } from '../lookup/clock';
import type { LookupService } from '../lookup/lookup-service';
import { sendToEveryTab } from '../message-client';
import { Refusal, type Handlers } from '../message-router';
import { MAX_UPDATED_IPS } from '../protocol';
import { DetailRate } from './detail-rate';
import { browserTabInFront, frameOf } from './detail-trust';
import { FrameAsks } from './frame-asks';

export type SubnetMessageType = 'ui:check-subnet' | 'cs:open-subnet-check';

export interface SubnetHandlerDeps {
  service: Pick<LookupService, 'checkSubnet'>;
  /** Tells every tab which cached answers changed; tests replace it. */
  notifyTabs?: (ips: string[]) => Promise<void>;
  /** What each frame asked (shared with the lookup handlers). */
  frameAsks?: FrameAsks;
  tabInFront?: (tabId: number) => Promise<boolean>;
  /** Opens an extension page (path with query) in a new tab next to `openerTabId`. */
  openPage?: (path: string, openerTabId: number) => Promise<void>;
  openRate?: DetailRate;
}

/** The popup page for a tab, offering a block: the analyst confirms the cost there. */
export function subnetCheckPath(tabId: number, cidr: string): string {
  return `/popup.html?tab=${tabId}&subnet=${encodeURIComponent(cidr)}`;
}

const browserOpenPage = async (path: string, openerTabId: number) => {
  await browser.tabs.create({ url: browser.runtime.getURL(path as '/popup.html'), openerTabId });
};

export function createSubnetHandlers({
  service,
  notifyTabs = (ips) => sendToEveryTab('tab:results-updated', { ips }),
  frameAsks = new FrameAsks(),
  tabInFront = browserTabInFront(browser),
  openPage = browserOpenPage,
  openRate = new DetailRate({ clock: systemClock, burst: 3, refillMs: 20_000, label: 'subnet checks opened' }),
}: SubnetHandlerDeps) {
  const handlers: Handlers<SubnetMessageType> = {
    'cs:open-subnet-check': async ({ cidr }, sender) => {
      const block = parseCidrInput(cidr);
      if (!block || block.hostBits || block.prefix !== API_MAX_BLOCK[block.version]) {
        throw new Refusal(`"${cidr.slice(0, 64)}" is not the /24 (IPv4) or /120 (IPv6) block of an address.`);
      }
      const frame = frameOf(sender);
      if (!(await tabInFront(frame.tabId).catch(() => false))) {
        throw new Refusal('A subnet check opens only from the tab in front: click the card again in this tab.');
      }
      await frameAsks.ready();
      if (!frameAsks.askedAny(frame, (ip) => blockContains(block, ip))) {
        throw new Refusal(`A subnet check opens only for blocks of addresses this page showed; type ${block.cidr} in the popup instead.`);
      }
      openRate.take(frame.tabId);
      await openPage(subnetCheckPath(frame.tabId, block.cidr), frame.tabId);
      return { opened: true as const };
    },
    'ui:check-subnet': async ({ cidr }) => {
      const block = parseCidrInput(cidr);
      if (!block) throw new ApiError({ kind: 'bad-request', message: `"${cidr}" is not a CIDR block such as 203.0.113.0/24.` });
      if (!isWithinApiLimit(block)) {
        throw new ApiError({
          kind: 'bad-request',
          message: `${block.cidr} is larger than ${apiLimitLabel(block.version)} (256 addresses), the largest block the API scans.`,
        });
      }
      const answer = await service.checkSubnet(block);
      if (answer.updated.length) {
        // Never fails the reply: a tab that cannot be told keeps its marks until it asks again.
        void notifyTabs(answer.updated.slice(0, MAX_UPDATED_IPS)).catch(() => undefined);
      }
      return { cidr: answer.cidr, summary: answer.summary, found: answer.found, cost: answer.cost };
    },
  };
  return { handlers };
}
