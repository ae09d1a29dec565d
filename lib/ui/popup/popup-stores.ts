/**
 * Everything the popup shows, as stores, and `start()`, which asks for all of it at once. The
 * entry point calls start() before the first render, so the questions to the background and
 * the tab are already in flight while Preact mounts (an effect would wait for the first paint).
 */
import { signal } from '@preact/signals';
import type { Settings } from '../../settings';
import { createDetailsStore } from './details-store';
import { createLookupStore } from './lookup-store';
import { createPageStore } from './page-store';
import type { UiServices } from '../shared/services';
import type { StatusMemo } from '../shared/status-memo';
import { createStatusStore } from '../shared/status-store';
import { createSubnetStore } from './subnet-store';

/** While the popup is open, results for the page keep arriving: re-read them this often. */
export const REFRESH_MS = 1500;

export function createPopupStores(services: UiServices, memo?: StatusMemo) {
  const settings = signal<Settings | null>(null);
  const status = createStatusStore(services, memo);
  const page = createPageStore(services);
  let stop: (() => void) | null = null;

  function applySettings(s: Settings): void {
    settings.value = s;
    if (page.patterns.value.length === 0) page.patterns.value = s.sitesToScan;
  }

  /** Idempotent; returns the function that stops the watching and polling. */
  function start(): () => void {
    if (stop) return stop;
    let alive = true;
    void services.settings.get().then((s) => alive && applySettings(s));
    void status.load();
    void page.load();
    const unwatch = services.settings.watch(() => {
      void services.settings.get().then((s) => {
        if (alive) settings.value = s;
      });
    });
    const timer = setInterval(() => {
      if (typeof document === 'undefined' || document.visibilityState === 'visible') {
        void page.refresh();
        void status.load();
      }
    }, REFRESH_MS);
    stop = () => {
      alive = false;
      unwatch();
      clearInterval(timer);
      stop = null;
    };
    return stop;
  }

  return {
    settings,
    status,
    page,
    lookup: createLookupStore(services),
    subnet: createSubnetStore(services),
    details: createDetailsStore(services),
    start,
  };
}
export type PopupStores = ReturnType<typeof createPopupStores>;
