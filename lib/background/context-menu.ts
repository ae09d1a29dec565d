/**
 * Context menu entries: "Scan this page" (on the page), and on a selection "Look up IP
 * reputation", "Copy IP as STIX 2.1" and "Open IP in" with one entry per enabled pivot. Menus persist with the
 * extension, so they are (re)created on install/update, and when the pivots change.
 */
import type { PivotChoice } from '../pivots';

export const MENU_SCAN_PAGE = 'ip-lens-scan-page';
export const MENU_LOOKUP_SELECTION = 'ip-lens-lookup-selection';
export const MENU_PIVOTS = 'ip-lens-pivots';
export const MENU_COPY_STIX = 'ip-lens-copy-stix';
/** `ip-lens-pivot:<pivot id>`, under MENU_PIVOTS. */
export const MENU_PIVOT_PREFIX = 'ip-lens-pivot:';

export interface MenuApi {
  contextMenus: {
    removeAll(): Promise<void>;
    create(properties: { id: string; title: string; contexts: ('page' | 'selection' | 'frame')[]; parentId?: string }): unknown;
  };
}

export async function createMenus(api: MenuApi, pivots: readonly PivotChoice[] = []): Promise<void> {
  await api.contextMenus.removeAll();
  api.contextMenus.create({ id: MENU_SCAN_PAGE, title: 'Scan this page for IP addresses', contexts: ['page', 'frame'] });
  api.contextMenus.create({ id: MENU_LOOKUP_SELECTION, title: 'Look up IP reputation', contexts: ['selection'] });
  api.contextMenus.create({ id: MENU_COPY_STIX, title: 'Copy IP as STIX 2.1', contexts: ['selection'] });
  if (!pivots.length) return;
  api.contextMenus.create({ id: MENU_PIVOTS, title: 'Open IP in', contexts: ['selection'] });
  for (const p of pivots) {
    // `&` marks an access key in menu titles: a name such as "R&D tools" would lose it.
    api.contextMenus.create({ id: `${MENU_PIVOT_PREFIX}${p.id}`, parentId: MENU_PIVOTS, title: p.name.replaceAll('&', '&&'), contexts: ['selection'] });
  }
}

export interface MenuClick {
  menuItemId: string | number;
  selectionText?: string;
  frameId?: number;
}

export type MenuAction =
  | { kind: 'scan-page'; tabId: number }
  | { kind: 'lookup-selection'; tabId: number; frameId: number; text: string }
  | { kind: 'pivot'; tabId: number; frameId: number; pivotId: string; text: string }
  | { kind: 'copy-stix'; tabId: number; frameId: number; text: string }
  | null;

export function menuAction(info: MenuClick, tabId: number | undefined): MenuAction {
  if (typeof tabId !== 'number' || tabId < 0) return null;
  if (info.menuItemId === MENU_SCAN_PAGE) return { kind: 'scan-page', tabId };
  if (info.menuItemId === MENU_LOOKUP_SELECTION && info.selectionText) {
    return { kind: 'lookup-selection', tabId, frameId: info.frameId ?? 0, text: info.selectionText.slice(0, 100_000) };
  }
  if (info.menuItemId === MENU_COPY_STIX && info.selectionText) {
    return { kind: 'copy-stix', tabId, frameId: info.frameId ?? 0, text: info.selectionText.slice(0, 100_000) };
  }
  if (typeof info.menuItemId === 'string' && info.menuItemId.startsWith(MENU_PIVOT_PREFIX) && info.selectionText) {
    const pivotId = info.menuItemId.slice(MENU_PIVOT_PREFIX.length);
    return { kind: 'pivot', tabId, frameId: info.frameId ?? 0, pivotId, text: info.selectionText.slice(0, 100_000) };
  }
  return null;
}
