/**
 * In-app navigation (pushState in a single-page console) swaps the view without a page load,
 * so the content script is not re-run. The Navigation API reports same-document navigations
 * made by the page's own scripts; where it is missing, popstate/hashchange plus a URL check on
 * every batch of DOM changes (a new view always changes the DOM) catch the rest.
 */

export interface NavigationWatch {
  /** Call when the DOM changed: reports a URL change that no event announced. */
  check(): void;
}

interface NavigationLike extends EventTarget {
  readonly currentEntry?: { url?: string | null } | null;
}

export function watchNavigation(
  win: Window,
  onNavigate: (url: string) => void,
  signal?: AbortSignal,
): NavigationWatch {
  let last = win.location.href;
  const check = () => {
    const now = win.location.href;
    if (now === last) return;
    last = now;
    onNavigate(now);
  };
  const opts = { signal };
  const nav = (win as unknown as { navigation?: NavigationLike }).navigation;
  // The entry changes before the app renders the new view; the mutations that follow are
  // scanned anyway, so this only needs to note the new URL and sweep what left.
  nav?.addEventListener('currententrychange', check, opts);
  win.addEventListener('popstate', check, opts);
  win.addEventListener('hashchange', check, opts);
  return { check };
}
