/**
 * The hover card's code, loaded at the first hover (see components/hover-card/lazy-card.ts):
 * injected by the background into the frame whose content script asked (`cs:load-card`), in
 * the content script's isolated world, where it hands the content script its factory. Built
 * as `hover-card.js`; it registers nothing else and touches nothing on the page.
 */
import { createHoverCard } from '@/components/hover-card/card-mount';
import { publishCardFactory } from '@/components/hover-card/lazy-card';
import { backgroundConnector } from '@/lib/background-connector';
import { nativeRuntime } from '@/lib/native-runtime';

export default defineUnlistedScript(() => {
  // "Copy as STIX" is wired here, in the card's own bundle, not by the content script, whose
  // every byte is paid by each scanned page.
  const send = backgroundConnector(nativeRuntime);
  publishCardFactory((deps) => createHoverCard({ copyStix: (ip) => send('cs:copy-stix', { ip }), ...deps }));
});
