/**
 * The content script: scans the page for IPs, marks them by reputation and shows the hover
 * card. Registered at runtime for the "Sites to scan" (lib/background/site-registration.ts)
 * or injected once into a tab (toolbar, shortcut, context menu); never in the manifest, so it
 * runs nowhere the analyst did not ask for. Built as `content-scripts/content.js`.
 */
import { classifyIp, findIps } from '@/lib/ip';
import { createLazyCard, type PageCard } from '@/components/hover-card/lazy-card';
import { PageLens } from '@/lib/page/page-lens';
import { fetchPivots, loadCard, lookupDetailed, openPivot, openSubnetCheck, readDisplaySettings, sendLookup, sendSummary } from './extension-bridge';
import { BlockMarks } from '@/lib/page/marks/block-marks';
import { staticRangeFactory } from '@/lib/page/occurrences/occurrence-store';
import { refreshShownResults } from '@/lib/page/lookups/refresh-results';
import { claimInstance } from './single-instance';
import { listenForTabMessages } from './tab-listener';
import { nativeRuntime } from '@/lib/native-runtime';
// Built to content-scripts/content.css and registered with the script (see marks.css).
import './marks.css';

export default defineContentScript({
  registration: 'runtime',
  // marks.css is injected by the registration (document start), never by WXT at run time.
  cssInjectionMode: 'manual',
  // WXT's window.postMessage announcement is seen by the page's own message handlers; the
  // DOM-event announcement (kept) is enough to stop an older copy of this script.
  noScriptStartedPostMessage: true,
  async main(ctx) {
    // Our own lifetime, not WXT's: a second copy of this script (a one-off scan where the
    // registered one runs) invalidates the first one's WXT context as it starts, and must not
    // stop it; only an extension update (the runtime gone) ends this instance.
    const life = new AbortController();
    const orphaned = () => nativeRuntime()?.id == null;
    if (!claimInstance(() => !life.signal.aborted && !orphaned())) return;
    ctx.onInvalidated(() => {
      if (orphaned()) life.abort();
    });
    const signal = life.signal;
    // The Custom Highlight API is what makes marking possible without touching the DOM.
    if (typeof CSS === 'undefined' || !('highlights' in CSS)) return;

    const settings = await readDisplaySettings();
    if (signal.aborted) return;
    let card: PageCard | null = null;
    const blocks = new BlockMarks({
      registry: CSS.highlights,
      createHighlight: () => new Highlight(),
      createSheet: () => new CSSStyleSheet(),
      styleRoot: document,
      makeRange: staticRangeFactory,
    });
    const lens = new PageLens({
      ...settings,
      findIps: blocks.blockAwareFindIps(findIps),
      onText: (node, data) => blocks.scanText(node, data),
      classifyIp,
      lookup: sendLookup,
      onSummary: sendSummary,
      isOwnUi: (el) => card?.isOwnUi(el) ?? false,
    });
    // The card's code (Preact, Floating UI) comes at the first hover: see lazy-card.ts.
    card = createLazyCard({ lens, findIps, lookupDetailed, openSubnetCheck, pivots: fetchPivots, openPivot, signal, load: loadCard });
    listenForTabMessages(
      {
        getPageIps: () => ({ url: location.href, title: document.title, ips: lens.pageIps(), scanning: lens.scanning, limited: lens.limited !== null }),
        showLookup: (text) => card?.showForSelection(text),
        resultsStale: () => lens.resultsStale(),
        lookupsRecovered: () => lens.retryFailed(),
        resultsUpdated: (ips) => void refreshShownResults(ips, { countOf: (ip) => lens.store.countOf(ip), putResult: (r) => lens.putResult(r) }, sendLookup),
        displaySettings: (next) => lens.update(next),
      },
      signal,
    );
    signal.addEventListener('abort', () => {
      lens.dispose();
      blocks.dispose();
    });
    await lens.start();
  },
});
