/**
 * `ui:check-subnet`: the popup's "Check this /24". The block is read again here (the popup's
 * parse is a convenience, not a guarantee), refused before any call when it is no block or
 * larger than the API scans (a 400 would still cost a unit), then checked by the lookup
 * service, which caches every scanned address. Open pages that show any of those addresses
 * are told, and ask the cache: their marks update without another API call.
 */
import { ApiError } from '../api/errors';
import { apiLimitLabel, isWithinApiLimit } from '../ip/cidr-block';
import { parseCidrInput } from '../ip/find-cidrs';
import type { LookupService } from '../lookup/lookup-service';
import { sendToEveryTab } from '../message-client';
import type { Handlers } from '../message-router';
import { MAX_UPDATED_IPS } from '../protocol';

export type SubnetMessageType = 'ui:check-subnet';

export interface SubnetHandlerDeps {
  service: Pick<LookupService, 'checkSubnet'>;
  /** Tells every tab which cached answers changed; tests replace it. */
  notifyTabs?: (ips: string[]) => Promise<void>;
}

export function createSubnetHandlers({ service, notifyTabs = (ips) => sendToEveryTab('tab:results-updated', { ips }) }: SubnetHandlerDeps) {
  const handlers: Handlers<SubnetMessageType> = {
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
