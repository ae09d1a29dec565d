/**
 * "Copy as STIX" for one IP: the hover card asks (`cs:copy-stix`), and the context menu's
 * "Copy IP as STIX 2.1" on a selection. The bundle is built here, in the background, from the
 * background's own answer for the IP (never from what a page says it was told), with the
 * analyst's thresholds and export options: the builders and the uuid package stay out of the
 * content script and the card, and a page cannot put its own reputation into the analyst's
 * clipboard. The card's copy carries no page address: it has no "include the page address"
 * box, and the default is off.
 */
import { renderCaseExport, type CaseExport } from '../export/case-export';
import { toLookupForm } from '../ip';
import type { LookupOptions } from '../lookup/lookup-service';
import type { LookupResult } from '../lookup/types';
import type { Handlers, SenderInfo } from '../message-router';
import { getSettingsOf, type Settings } from '../settings';
import { frameOf } from './detail-trust';
import type { FrameAsks } from './frame-asks';

export type StixMessageType = 'cs:copy-stix';

export interface StixHandlerDeps {
  lookup: { lookup(ips: readonly string[], options: LookupOptions): Promise<LookupResult[]> };
  frameAsks: FrameAsks;
  settings?: () => Promise<Pick<Settings, 'thresholds' | 'exportOptions'>>;
  now?: () => number;
}

/** Why there is nothing to copy, in the card's words. */
export const NOTHING_TO_EXPORT = 'No reputation for this IP to export: it was not looked up (private, skipped, or the lookup failed).';

export function createStixHandlers(deps: StixHandlerDeps) {
  const settings = deps.settings ?? (() => getSettingsOf(['thresholds', 'exportOptions']));
  const now = deps.now ?? Date.now;

  /** The STIX bundle of one IP's answer; throws NOTHING_TO_EXPORT when there is no answer. */
  async function stixOf(result: LookupResult): Promise<CaseExport> {
    const { thresholds, exportOptions } = await settings();
    const built = renderCaseExport({
      format: 'stix',
      rows: [{ ip: result.ip, count: 1, result }],
      thresholds,
      context: { exportedAt: now(), origin: { kind: 'page' }, mediumIndicators: exportOptions.mediumIndicators },
    });
    if (built.exported === 0) throw new Error(NOTHING_TO_EXPORT);
    return built;
  }

  const handlers: Handlers<StixMessageType> = {
    'cs:copy-stix': async ({ ip }, sender: SenderInfo) => {
      const canonical = toLookupForm(ip);
      if (!canonical) throw new Error('Not an IP address.');
      await deps.frameAsks.ready();
      // Only an IP this frame's scanner found and asked about: the card shows it, so it may
      // copy it; any other IP would make the card a free reputation oracle for the page.
      if (!deps.frameAsks.wasAsked(frameOf(sender), ip)) throw new Error('This page did not ask about that IP.');
      // Known without a call: the frame asked and was answered, so it is in the cache.
      const [result] = await deps.lookup.lookup([canonical], { priority: 'background', answerNow: true });
      if (!result) throw new Error(NOTHING_TO_EXPORT);
      const built = await stixOf(result);
      return { text: built.text, indicators: built.indicators };
    },
  };

  /** The context menu's copy: the selection's first IP, looked up as the analyst asked (manual). */
  async function stixForSelection(text: string, findFirst: (text: string) => string | undefined): Promise<CaseExport | null> {
    const ip = findFirst(text);
    if (!ip) return null;
    const [result] = await deps.lookup.lookup([ip], { priority: 'manual' });
    return result ? stixOf(result) : null;
  }

  return { handlers, stixOf, stixForSelection };
}
export type StixService = Pick<ReturnType<typeof createStixHandlers>, 'stixForSelection'>;
