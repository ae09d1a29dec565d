/**
 * The keyboard shortcut to the page's IPs (`next-ip`, Alt+Shift+K by default): Tab cannot reach
 * a marked IP, since marks are highlights, not elements. A browser command reaches only the
 * background, so the background runs a small function in the content script's world of the
 * frame the analyst is in, which hands the key to the hover card (components/hover-card/
 * lazy-card.ts, CARD_KEYBOARD_KEY): into the open card, or on to the next mark on screen.
 *
 * Which frame: the one holding the focus (the innermost focused document), else the top one.
 * A page not scanned yet (no content script in any frame) is scanned, as Alt+Shift+S would:
 * the command grants activeTab like the scan shortcut does.
 */
import { CARD_KEYBOARD_KEY } from '@/components/hover-card/lazy-card';

export const NEXT_IP_COMMAND = 'next-ip';

export interface ScriptInjection {
  target: { tabId: number; allFrames?: boolean; frameIds?: number[] };
  func: (key: string) => unknown;
  args: [string];
}

export interface KeyboardApi {
  /** `scripting.executeScript` with a function: one result per frame it ran in. */
  runInFrames(injection: ScriptInjection): Promise<unknown[]>;
  /** Scans the tab (the content script into its frames). */
  scan(tabId: number): Promise<void>;
}

export interface FrameState {
  frameId: number;
  /** The content script runs there (its keyboard entry is present). */
  lens: boolean;
  /** The focus is in this document itself, not in a frame inside it. */
  focused: boolean;
}

/**
 * Runs in each frame (serialised: it may use nothing from outside but its argument). A
 * document whose active element is a frame has handed the focus on to that frame.
 */
export function frameState(key: string): { lens: boolean; focused: boolean } {
  const active = document.activeElement;
  const inner = !!active && (active.tagName === 'IFRAME' || active.tagName === 'FRAME');
  return { lens: typeof (globalThis as Record<string, unknown>)[key] === 'function', focused: document.hasFocus() && !inner };
}

/** Runs in the chosen frame: brings the card (see CARD_KEYBOARD_KEY) and hands it the key. */
export function pressKey(key: string): boolean {
  const bring = (globalThis as Record<string, unknown>)[key];
  if (typeof bring !== 'function') return false;
  void Promise.resolve((bring as (fromHover: boolean) => unknown)(false)).then((card) => (card as { keyboard?: () => void } | null)?.keyboard?.());
  return true;
}

/** The frame that takes the key: focused with a content script, else the top frame's, else any. */
export function chooseFrame(states: readonly FrameState[]): number | undefined {
  const withLens = states.filter((s) => s.lens);
  return (withLens.find((s) => s.focused) ?? withLens.find((s) => s.frameId === 0) ?? withLens[0])?.frameId;
}

/** What executeScript returned, checked: a frame's renderer answers, and it is not trusted. */
export function parseFrameStates(results: readonly unknown[]): FrameState[] {
  const states: FrameState[] = [];
  for (const r of results) {
    if (!r || typeof r !== 'object') continue;
    const { frameId, result } = r as { frameId?: unknown; result?: unknown };
    if (typeof frameId !== 'number' || !result || typeof result !== 'object') continue;
    const { lens, focused } = result as { lens?: unknown; focused?: unknown };
    states.push({ frameId, lens: lens === true, focused: focused === true });
  }
  return states;
}

/** The command: the key goes to the frame's card, or the page is scanned first. */
export async function nextIpCommand(api: KeyboardApi, tabId: number): Promise<'key' | 'scanned'> {
  const results = await api.runInFrames({ target: { tabId, allFrames: true }, func: frameState, args: [CARD_KEYBOARD_KEY] });
  const frameId = chooseFrame(parseFrameStates(results));
  if (frameId === undefined) {
    await api.scan(tabId);
    return 'scanned';
  }
  await api.runInFrames({ target: { tabId, frameIds: [frameId] }, func: pressKey, args: [CARD_KEYBOARD_KEY] });
  return 'key';
}
