/**
 * Helpers for the hover card's keyboard tests: the shortcut as the background runs it, and the
 * keyboard focus inside the card's closed shadow root, read through the accessibility tree.
 */
import type { BrowserContext, CDPSession } from '@playwright/test';
import { CARD_KEYBOARD_KEY } from '../../components/hover-card/lazy-card';
import { chooseFrame, frameState, parseFrameStates, pressKey } from '../../lib/background/keyboard-command';
import { serviceWorkerOf } from './fixtures';

/**
 * What Alt+Shift+K does (lib/background/keyboard-command.ts), run in the service worker with
 * the background's own functions: a browser command cannot be pressed from a test (Chromium
 * handles command keys in its window, which synthetic input never reaches), so this runs the
 * same two steps the command listener runs.
 */
export async function pressNextIp(context: BrowserContext, url: string): Promise<void> {
  const worker = await serviceWorkerOf(context);
  const script = `(async () => {
    const frameState = ${frameState.toString()};
    const pressKey = ${pressKey.toString()};
    const chooseFrame = ${chooseFrame.toString()};
    const parseFrameStates = ${parseFrameStates.toString()};
    const [tab] = await chrome.tabs.query({ url: ${JSON.stringify(url)} });
    const key = ${JSON.stringify(CARD_KEYBOARD_KEY)};
    const states = await chrome.scripting.executeScript({ target: { tabId: tab.id, allFrames: true }, func: frameState, args: [key] });
    const frameId = chooseFrame(parseFrameStates(states));
    if (frameId === undefined) throw new Error('No frame with the content script');
    await chrome.scripting.executeScript({ target: { tabId: tab.id, frameIds: [frameId] }, func: pressKey, args: [key] });
  })()`;
  await worker.evaluate(script);
}

interface AxNode {
  role?: { value: string };
  name?: { value: string };
  properties?: { name: string; value: { value: unknown } }[];
}

/** The focused node of the page's accessibility tree (it enters closed shadow roots). */
export async function focusedNode(cdp: CDPSession): Promise<{ role: string; name: string } | null> {
  const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: AxNode[] };
  // The document's root says it holds the focus too: the focused element is the other one.
  const node = nodes.find((n) => n.role?.value !== 'RootWebArea' && n.properties?.some((p) => p.name === 'focused' && p.value.value === true));
  return node ? { role: node.role?.value ?? '', name: node.name?.value ?? '' } : null;
}

/** The marks on screen, in reading order (line by line, left to right), with their boxes. */
export function marksOnScreen(page: import('@playwright/test').Page): Promise<{ ip: string; x: number; y: number; width: number; height: number }[]> {
  return page.evaluate(() => {
    const out: { ip: string; x: number; y: number; width: number; height: number }[] = [];
    for (const [name, h] of CSS.highlights) {
      if (!name.startsWith('ip-rep-')) continue;
      for (const r of h) {
        const node = r.startContainer as Text;
        if (!node.isConnected) continue;
        const live = document.createRange();
        live.setStart(node, r.startOffset);
        live.setEnd(node, r.endOffset);
        const box = [...live.getClientRects()].find((b) => b.width > 0 && b.bottom > 0 && b.top < innerHeight && b.right > 0 && b.left < innerWidth);
        const at = box && document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        if (!box || !at || !at.contains(node)) continue;
        out.push({ ip: node.data.slice(r.startOffset, r.endOffset), x: box.left, y: box.top, width: box.width, height: box.height });
      }
    }
    out.sort((a, b) => (Math.abs(a.y - b.y) < Math.min(a.height, b.height) / 2 ? a.x - b.x : a.y - b.y));
    return out;
  });
}
