/**
 * The service worker: the only context that holds the API key and talks to the API. It wires
 * lib/ modules to browser events and holds no logic of its own. Listeners are registered
 * synchronously at start-up, as MV3 requires for events to wake a stopped worker.
 */
import { browser } from 'wxt/browser';
import { createLookupHandlers } from '@/lib/background/lookup-handlers';
import { createPageHandlers } from '@/lib/background/page-handlers';
import { createRouter } from '@/lib/message-router';

export default defineBackground(() => {
  const lookupHandlers = createLookupHandlers();
  const pageHandlers = createPageHandlers({ lookup: lookupHandlers.service });
  const route = createRouter(
    { ...lookupHandlers.handlers, ...pageHandlers.handlers },
    { extensionId: browser.runtime.id, extensionOrigin: browser.runtime.getURL('/') },
  );
  browser.runtime.onMessage.addListener((message, sender) => route(message, sender));
  pageHandlers.start();
});
