/**
 * The service worker: the only context that holds the API key and talks to the API. It wires
 * lib/ modules to browser events and holds no logic of its own. Listeners are registered
 * synchronously at start-up, as MV3 requires for events to wake a stopped worker.
 */
import { browser } from 'wxt/browser';
import { createDisplayHandlers } from '@/lib/background/display-handlers';
import { FrameAsks } from '@/lib/background/frame-asks';
import { createLookupHandlers } from '@/lib/background/lookup-handlers';
import { createPageHandlers } from '@/lib/background/page-handlers';
import { sessionValue } from '@/lib/background/session-value';
import { createPivotHandlers } from '@/lib/background/pivot-handlers';
import { createStixHandlers } from '@/lib/background/stix-handlers';
import { createSettingsHandlers } from '@/lib/background/settings-handlers';
import { createSignInHandlers } from '@/lib/background/sign-in-handlers';
import { restrictToTrustedContexts } from '@/lib/background/storage-access';
import { createSubnetHandlers } from '@/lib/background/subnet-handlers';
import { createRouter } from '@/lib/message-router';
import { parseEnvelope } from '@/lib/messaging';
import { migrateApiKeyStorage } from '@/lib/settings';

export default defineBackground(() => {
  // First, before anything else runs: the key in storage.local is for our pages and worker only.
  void restrictToTrustedContexts(browser.storage.local);
  // The key itself moves out of storage.local, into the extension's IndexedDB (Firefox content
  // scripts can read storage.local whatever its access level).
  void migrateApiKeyStorage();
  // What each frame was told: lookups note it, page summaries are checked against it.
  const frameAsks = new FrameAsks({ store: sessionValue(browser.storage.session, 'frameAsks') });
  const lookupHandlers = createLookupHandlers({}, { frameAsks });
  const pivotHandlers = createPivotHandlers();
  const stixHandlers = createStixHandlers({ lookup: lookupHandlers.service, frameAsks });
  const pageHandlers = createPageHandlers({ lookup: lookupHandlers.service, frameAsks, pivots: pivotHandlers, stix: stixHandlers });
  const displayHandlers = createDisplayHandlers();
  const subnetHandlers = createSubnetHandlers({ service: lookupHandlers.service, frameAsks });
  const settingsHandlers = createSettingsHandlers();
  const signInHandlers = createSignInHandlers();
  const route = createRouter(
    { ...lookupHandlers.handlers, ...pageHandlers.handlers, ...displayHandlers.handlers, ...subnetHandlers.handlers, ...pivotHandlers.handlers, ...settingsHandlers.handlers, ...signInHandlers.handlers, ...stixHandlers.handlers },
    { extensionId: browser.runtime.id, extensionOrigin: browser.runtime.getURL('/'), parse: parseEnvelope },
  );
  browser.runtime.onMessage.addListener((message, sender) => route(message, sender));
  lookupHandlers.start();
  pageHandlers.start();
  displayHandlers.start();
  signInHandlers.start();
});
