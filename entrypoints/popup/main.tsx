import { render } from 'preact';
import { StoredPivots } from '@/components/pivot-links';
import { browser } from 'wxt/browser';
import { createBrowserServices } from '@/lib/ui/shared/browser-services';
import { createPopupStores } from '@/lib/ui/popup/popup-stores';
import { subnetFromSearch } from '@/lib/ui/popup/subnet-store';
import { ServicesContext } from '@/lib/ui/shared/services-context';
import { localStatusMemo } from '@/lib/ui/shared/status-memo';
import { PopupApp } from './popup-app';
import '@/components/reputation-details.css';
import '@/components/ui.css';
import './style.css';

// As the toolbar popup the page sizes to its content; opened as a tab (tests, `?tab=`) it
// fills the window. getViews tells the two apart.
const inPopup = browser.extension?.getViews?.({ type: 'popup' }).includes(window) ?? false;
document.documentElement.classList.toggle('in-popup', inPopup);

const services = createBrowserServices();
const stores = createPopupStores(services, localStatusMemo());
// Ask the background and the tab now; rendering proceeds while they answer.
stores.start();

render(
  <ServicesContext.Provider value={services}>
    <StoredPivots settings={stores.settings}>
      <PopupApp stores={stores} />
    </StoredPivots>
  </ServicesContext.Provider>,
  document.getElementById('app')!,
);
// The lookup command (_execute_action) opens the popup to type an IP: be ready for it.
const lookupInput = document.getElementById('lookup-input') as HTMLTextAreaElement | null;
lookupInput?.focus();
// Opened by a card's "Check this /24": the block is offered with its cost, for the analyst to confirm.
const askedBlock = subnetFromSearch(location.search);
if (askedBlock && stores.subnet.offerFor(askedBlock) && lookupInput) lookupInput.value = askedBlock;
