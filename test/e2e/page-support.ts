/**
 * Helpers for the in-page e2e tests (page-*.spec.ts): configure the extension from one of its
 * own pages, read the marks (CSS.highlights is visible to page scripts), and read or click the
 * hover card, which lives in a closed shadow root that only the DevTools protocol can enter.
 */
import type { BrowserContext, CDPSession, Frame, Page } from '@playwright/test';
import path from 'node:path';
import { SEVERITIES, type Severity } from '../../lib/severity';
import { startSimulator, type Simulator } from '../sim/server';
import { test } from './fixtures';
import type { Box } from './scenarios/driver';

export const SEVERITY_NAMES = SEVERITIES;
export type SeverityName = Severity;

export const UNLIMITED_KEY = 'unlimited-key';

/** The bits of `chrome.*` these helpers call inside extension pages (no @types/chrome here). */
declare const chrome: {
  storage: { local: { set(items: Record<string, unknown>): Promise<void> }; managed: { get(): Promise<unknown> } };
  runtime: { sendMessage(message: unknown): Promise<never> };
};

export function startPageSimulator(): Promise<Simulator> {
  return startSimulator({ port: 0, staticDir: path.resolve('test/fixtures') });
}

/**
 * One simulator per spec file, serving the fixture pages. Before each test the extension is
 * configured for it and, with `scanLoopback`, registered to scan every page on 127.0.0.1.
 */
export function usePageSimulator(options: { scanLoopback: boolean }): { readonly sim: Simulator } {
  const env = {} as { sim: Simulator };
  test.beforeAll(async () => {
    env.sim = await startPageSimulator();
  });
  test.afterAll(async () => {
    await env.sim.close();
  });
  test.beforeEach(async ({ context, extensionId }) => {
    await configure(context, extensionId, env.sim);
    if (options.scanLoopback) await setSiteScanning(context, extensionId, 'http://127.0.0.1/*', true);
  });
  return env;
}

export function pageUrl(sim: Simulator, name: string, host = '127.0.0.1'): string {
  return `${sim.origin.replace('127.0.0.1', host)}/pages/siem/${name}`;
}

export async function configure(context: BrowserContext, extensionId: string, sim: Simulator, apiKey = UNLIMITED_KEY) {
  const page = await context.newPage();
  try {
    await page.goto(`chrome-extension://${extensionId}/options.html`);
    await page.evaluate(
      ([baseUrl, key]) => chrome.storage.local.set({ apiBaseUrl: baseUrl, apiKey: key }),
      [sim.baseUrl, apiKey] as const,
    );
    // Each test starts a new browser, and Chromium answers `storage.managed` only once its policy
    // service has started: every call waits for that one moment, ~3 s after start here, and
    // 12-21 s in about one run in four on a loaded machine. The background sends no lookup before
    // it knows the organisation's policy (it may turn lookups off), so a test that times marks
    // from a scan starts once the browser has.
    await page.evaluate(() => chrome.storage.managed.get());
  } finally {
    await page.close();
  }
}

/** Sends a message to the background from an extension page; returns its Reply envelope. */
export async function sendFromExtension(
  context: BrowserContext,
  extensionId: string,
  message: { type: string; payload: unknown },
): Promise<{ ok: boolean; value?: unknown; error?: { kind: string; message: string } }> {
  const page = await context.newPage();
  try {
    await page.goto(`chrome-extension://${extensionId}/options.html`);
    return await page.evaluate((m) => chrome.runtime.sendMessage(m), message);
  } finally {
    await page.close();
  }
}

export async function setSiteScanning(context: BrowserContext, extensionId: string, pattern: string, enabled: boolean) {
  const reply = await sendFromExtension(context, extensionId, { type: 'ui:set-site-scanning', payload: { pattern, enabled } });
  if (!reply.ok) throw new Error(`ui:set-site-scanning failed: ${JSON.stringify(reply.error)}`);
  return reply.value as { patterns: string[] };
}

type Target = Page | Frame;

/** Highlight name -> number of ranges. */
export function highlightSizes(target: Target): Promise<Record<string, number>> {
  return target.evaluate((names) => {
    const out: Record<string, number> = {};
    for (const n of names) out[n] = CSS.highlights.get(`ip-rep-${n}`)?.size ?? 0;
    return out;
  }, [...SEVERITY_NAMES]);
}

export interface MarkedText {
  text: string;
  connected: boolean;
  /** The tag of the element holding the text ('#shadow' when it is directly in a shadow root). */
  parentTag: string;
  /** The closest ancestor id (crossing no shadow boundary). */
  owner: string | null;
}

/** The text under each range of one highlight. */
export function markedTexts(target: Target, severity: SeverityName): Promise<MarkedText[]> {
  return target.evaluate((name) => {
    const h = CSS.highlights.get(`ip-rep-${name}`);
    return [...(h ?? [])].map((r) => {
      const node = r.startContainer as Text;
      const parent = node.parentElement;
      return {
        text: node.data.slice(r.startOffset, r.endOffset),
        connected: node.isConnected,
        parentTag: parent ? parent.tagName.toLowerCase() : '#shadow',
        owner: parent?.closest('[id]')?.id ?? null,
      };
    });
  }, severity);
}

export async function markedIps(target: Target, severity: SeverityName): Promise<string[]> {
  return [...new Set((await markedTexts(target, severity)).map((m) => m.text))].sort();
}

/**
 * Scrolls the first page text showing `ip` (form fields and editable regions aside) to the
 * middle of the screen, as an analyst would: marks and lookups exist only within a screen of it.
 */
export async function scrollToIp(page: Page, ip: string): Promise<void> {
  const found = await page.evaluate((wanted) => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || !(node as Text).data.includes(wanted) || parent.closest('textarea, [contenteditable]')) continue;
      if (parent.getClientRects().length === 0) continue; // collapsed, not shown
      parent.scrollIntoView({ block: 'center', inline: 'nearest' });
      return true;
    }
    return false;
  }, ip);
  if (!found) throw new Error(`${ip} is not shown on the page`);
}

/** Where an IP is drawn (centre of its nth mark), scrolled into view first, in viewport pixels. */
export async function ipPoint(page: Page, ip: string, nth = 0): Promise<{ x: number; y: number }> {
  const point = await page.evaluate(
    ([wanted, index]) => {
      const ranges: Range[] = [];
      for (const [name, h] of CSS.highlights) {
        if (!name.startsWith('ip-rep-')) continue;
        for (const r of h) {
          const node = r.startContainer as Text;
          if (!node.isConnected || node.data.slice(r.startOffset, r.endOffset) !== wanted) continue;
          const live = document.createRange();
          live.setStart(node, r.startOffset);
          live.setEnd(node, r.endOffset);
          if (live.getBoundingClientRect().width > 0) ranges.push(live);
        }
      }
      ranges.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);
      const range = ranges[index];
      if (!range) return null;
      range.startContainer.parentElement?.scrollIntoView({ block: 'center', inline: 'nearest' });
      const rect = range.getBoundingClientRect();
      return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
    },
    [ip, nth] as const,
  );
  if (!point) throw new Error(`${ip} is not marked on the page`);
  return point;
}

export async function hoverIp(page: Page, ip: string): Promise<void> {
  const { x, y } = await ipPoint(page, ip);
  await page.mouse.move(x - 40, y + 30);
  await page.mouse.move(x, y, { steps: 4 });
}

interface CdpNode {
  nodeId: number;
  nodeType: number;
  nodeName: string;
  nodeValue: string;
  attributes?: string[];
  children?: CdpNode[];
  shadowRoots?: CdpNode[];
  contentDocument?: CdpNode;
}

export interface CardSnapshot {
  /** All text in the card, in order, whitespace-collapsed. */
  text: string;
  /** Every element tag inside the card's shadow root. */
  tags: string[];
  buttons: { text: string; nodeId: number }[];
  shadowRootType: string | null;
  /** Number of card hosts in the document. */
  hosts: number;
}

function walk(node: CdpNode, visit: (n: CdpNode) => void): void {
  visit(node);
  for (const s of node.shadowRoots ?? []) walk(s, visit);
  for (const c of node.children ?? []) walk(c, visit);
}

function textOf(node: CdpNode): string {
  const parts: string[] = [];
  walk(node, (n) => {
    if (n.nodeType === 3) parts.push(n.nodeValue);
  });
  return parts.join(' ').replace(/\s+/g, ' ').trim();
}

function attributeOf(n: CdpNode, name: string): string {
  const a = n.attributes ?? [];
  const i = a.indexOf(name);
  return i >= 0 && i % 2 === 0 ? (a[i + 1] ?? '') : '';
}

/** Our card's border box in viewport pixels, read through CDP (closed shadow root); null when none is open. */
export async function cardBox(cdp: CDPSession): Promise<Box | null> {
  const { root } = (await cdp.send('DOM.getDocument', { depth: -1, pierce: true })) as { root: CdpNode };
  let card: CdpNode | undefined;
  walk(root, (n) => {
    if (!card && n.nodeName === 'DIV' && /(^|\s)card(\s|$)/.test(attributeOf(n, 'class'))) card = n;
  });
  if (!card) return null;
  const reply = await cdp.send('DOM.getBoxModel', { nodeId: card.nodeId }).catch(() => null);
  if (!reply) return null; // Closed meanwhile.
  const { model } = reply as { model: { border: number[] } };
  const xs = [model.border[0]!, model.border[2]!, model.border[4]!, model.border[6]!];
  const ys = [model.border[1]!, model.border[3]!, model.border[5]!, model.border[7]!];
  return { x: Math.min(...xs), y: Math.min(...ys), width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys) };
}

/** Reads the card through CDP (it pierces closed shadow roots); null when no card is open. */
export async function readCard(cdp: CDPSession): Promise<CardSnapshot | null> {
  const { root } = (await cdp.send('DOM.getDocument', { depth: -1, pierce: true })) as { root: CdpNode };
  const hosts: CdpNode[] = [];
  walk(root, (n) => {
    if (n.nodeName === 'IP-REPUTATION-LENS') hosts.push(n);
  });
  const host = hosts[0];
  if (!host) return null;
  const shadow = host.shadowRoots?.[0];
  if (!shadow) return null;
  const tags: string[] = [];
  const buttons: { text: string; nodeId: number }[] = [];
  walk(shadow, (n) => {
    if (n.nodeType === 1) tags.push(n.nodeName.toLowerCase());
    if (n.nodeName === 'BUTTON') buttons.push({ text: textOf(n), nodeId: n.nodeId });
  });
  const type = (shadow as unknown as { shadowRootType?: string }).shadowRootType ?? null;
  return { text: textOf(shadow), tags, buttons, shadowRootType: type, hosts: hosts.length };
}

export async function clickCardButton(page: Page, cdp: CDPSession, label: RegExp): Promise<void> {
  const card = await readCard(cdp);
  const button = card?.buttons.find((b) => label.test(b.text));
  if (!button) throw new Error(`No card button matching ${label}; card: ${card?.text ?? 'none'}`);
  const { model } = (await cdp.send('DOM.getBoxModel', { nodeId: button.nodeId })) as { model: { content: number[] } };
  const q = model.content;
  const x = (q[0]! + q[2]! + q[4]! + q[6]!) / 4;
  const y = (q[1]! + q[3]! + q[5]! + q[7]!) / 4;
  await page.mouse.move(x, y, { steps: 6 });
  await page.mouse.click(x, y);
}

/** The page's DOM as markup, without the card host: what the page would have on its own. */
export function serialisePage(target: Target): Promise<string> {
  return target.evaluate(() => {
    const clone = document.documentElement.cloneNode(true) as HTMLElement;
    clone.querySelectorAll('ip-reputation-lens').forEach((n) => n.remove());
    const shadows: string[] = [];
    const collect = (root: Document | ShadowRoot) => {
      for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot) {
          shadows.push(`${el.tagName}:${el.shadowRoot.innerHTML}`);
          collect(el.shadowRoot);
        }
      }
    };
    collect(document);
    return `${clone.outerHTML}\n${shadows.join('\n')}`;
  });
}
