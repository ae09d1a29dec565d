import { browser } from 'wxt/browser';
import { createRouter } from '@/lib/message-router';

export default defineBackground(() => {
  const route = createRouter(
    {
      'ui:get-status': () => {
        throw new Error('not wired yet');
      },
    },
    { extensionId: browser.runtime.id, extensionOrigin: browser.runtime.getURL('/') },
  );
  browser.runtime.onMessage.addListener((message, sender) => route(message, sender));
});
