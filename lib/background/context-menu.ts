/**
 * Context menu entries: "Scan this page" (on the page) and "Look up IP reputation" (on a
 * selection). Menus persist with the extension, so they are (re)created on install/update only.
 */
export const MENU_SCAN_PAGE = 'ip-lens-scan-page';
export const MENU_LOOKUP_SELECTION = 'ip-lens-lookup-selection';

export interface MenuApi {
  contextMenus: {
    removeAll(): Promise<void>;
    create(properties: { id: string; title: string; contexts: ('page' | 'selection' | 'frame')[] }): unknown;
  };
}

export async function createMenus(api: MenuApi): Promise<void> {
  await api.contextMenus.removeAll();
  api.contextMenus.create({ id: MENU_SCAN_PAGE, title: 'Scan this page for IP addresses', contexts: ['page', 'frame'] });
  api.contextMenus.create({ id: MENU_LOOKUP_SELECTION, title: 'Look up IP reputation', contexts: ['selection'] });
}

export interface MenuClick {
  menuItemId: string | number;
  selectionText?: string;
  frameId?: number;
}

export type MenuAction =
  | { kind: 'scan-page'; tabId: number }
  | { kind: 'lookup-selection'; tabId: number; frameId: number; text: string }
  | null;

export function menuAction(info: MenuClick, tabId: number | undefined): MenuAction {
  if (typeof tabId !== 'number' || tabId < 0) return null;
  if (info.menuItemId === MENU_SCAN_PAGE) return { kind: 'scan-page', tabId };
  if (info.menuItemId === MENU_LOOKUP_SELECTION && info.selectionText) {
    return { kind: 'lookup-selection', tabId, frameId: info.frameId ?? 0, text: info.selectionText.slice(0, 100_000) };
  }
  return null;
}
