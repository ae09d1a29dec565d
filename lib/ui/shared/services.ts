/**
 * Everything the popup and options pages need from the browser, behind one object. The pages
 * take it from a Preact context, so unit tests swap in fakes (the Dark Reader "connector"
 * pattern) and no component imports `browser` directly.
 */
import type { Connector } from '../../message-client';
import type { MessagePayload, MessageReplies, MessageType } from '../../messaging';
import type { Reply } from '../../protocol';
import type { ManagedView, Settings, SettingKey } from '../../settings';

export type TabConnector = <T extends MessageType>(
  tabId: number,
  type: T,
  payload: MessagePayload<T>,
) => Promise<Reply<MessageReplies[T]>>;

export interface TabInfo {
  id: number;
  /** Absent when the extension may not read it (no host permission, no activeTab). */
  url?: string;
  title?: string;
}

export interface SettingsStore {
  get(): Promise<Settings>;
  /** All-or-nothing: throws a ZodError and writes nothing when a value is invalid. */
  save(patch: Partial<Settings>): Promise<Settings>;
  watch(callback: (changed: SettingKey[]) => void): () => void;
  /** What the organisation's policy locks (never its key). Absent: no policy support (tests). */
  policy?(): Promise<ManagedView>;
}

export interface PermissionsApi {
  contains(origins: string[]): Promise<boolean>;
  /** Must be called from a click handler, before any other await (user gesture). */
  request(origins: string[]): Promise<boolean>;
  remove(origins: string[]): Promise<boolean>;
}

export interface UiServices {
  /** UI -> background messages. */
  send: Connector;
  /** Popup -> content script of one tab. */
  sendToTab: TabConnector;
  settings: SettingsStore;
  permissions: PermissionsApi;
  /** The tab the popup is about: `?tab=<id>` when given (tests), else the active tab. */
  currentTab(): Promise<TabInfo | null>;
  openOptions(): Promise<void>;
  copyText(text: string): Promise<void>;
  saveFile(name: string, mime: string, text: string): void;
  now(): number;
}
