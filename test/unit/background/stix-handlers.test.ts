import { describe, expect, it, vi } from 'vitest';
import { MENU_COPY_STIX } from '@/lib/background/context-menu';
import { FrameAsks } from '@/lib/background/frame-asks';
import { createPageHandlers } from '@/lib/background/page-handlers';
import { createStixHandlers, NOTHING_TO_EXPORT } from '@/lib/background/stix-handlers';
import type { LookupResult } from '@/lib/lookup/types';
import { createRouter } from '@/lib/message-router';
import { parseEnvelope } from '@/lib/messaging';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';
import { found } from '../ui/samples';
import { stixViolations } from '../export/stix-rules';
import { fakePageApi, memorySites } from './page-api-fake';

const EXT = { extensionId: 'ext', extensionOrigin: 'chrome-extension://ext/', parse: parseEnvelope };
const fromTab = (tabId: number, frameId = 0) => ({ id: 'ext', url: 'http://127.0.0.1/p', tab: { id: tabId, url: 'http://127.0.0.1/p' }, frameId, documentId: 'doc' });

function setup(answers: Record<string, LookupResult>, mediumIndicators = false) {
  const lookup = vi.fn(async (ips: readonly string[]) => ips.map((ip) => answers[ip] ?? ({ ip, status: 'skipped', reason: 'private' } as LookupResult)));
  const frameAsks = new FrameAsks();
  const stix = createStixHandlers({
    lookup: { lookup },
    frameAsks,
    settings: async () => ({ thresholds: DEFAULT_THRESHOLDS, exportOptions: { mediumIndicators } }),
    now: () => Date.UTC(2025, 0, 15, 12, 0, 0),
  });
  const route = createRouter(stix.handlers, EXT);
  return { lookup, frameAsks, stix, route };
}

describe('Copy as STIX (card)', () => {
  it('builds the bundle of an IP the frame was told about, from the background\'s own answer', async () => {
    const answer = found('185.220.101.4', { score: 91, reputation: 'malicious' });
    const { route, frameAsks, lookup } = setup({ '185.220.101.4': answer });
    frameAsks.noteAsked({ tabId: 4, frameId: 0, documentId: 'doc' }, ['185.220.101.4']);
    const reply = await route({ type: 'cs:copy-stix', payload: { ip: '185.220.101.4' } }, fromTab(4));
    expect(reply).toMatchObject({ ok: true, value: { indicators: 1 } });
    const bundle = JSON.parse((reply as { value: { text: string } }).value.text);
    expect(stixViolations(bundle)).toEqual([]);
    expect(bundle.objects.find((o: { type: string }) => o.type === 'indicator').pattern).toBe("[ipv4-addr:value = '185.220.101.4']");
    // No page address in the card's copy.
    expect(JSON.stringify(bundle)).not.toContain('127.0.0.1');
    expect(lookup).toHaveBeenCalledWith(['185.220.101.4'], { priority: 'background', answerNow: true });
  });

  it('refuses an IP the frame was not told about, and a payload that is no IP', async () => {
    const { route, lookup } = setup({ '185.220.101.4': found('185.220.101.4', { score: 91 }) });
    expect(await route({ type: 'cs:copy-stix', payload: { ip: '185.220.101.4' } }, fromTab(4))).toMatchObject({ ok: false, error: { message: /did not ask/ } });
    expect(await route({ type: 'cs:copy-stix', payload: { ip: "1.2.3.4'] OR" } }, fromTab(4))).toMatchObject({ ok: false, error: { message: 'Not an IP address.' } });
    expect(await route({ type: 'cs:copy-stix', payload: { ip: '1.2.3.4', extra: 1 } }, fromTab(4))).toMatchObject({ ok: false, error: { kind: 'invalid-message' } });
    expect(lookup).not.toHaveBeenCalled();
  });

  it('says so when the IP has no answer to export', async () => {
    const { route, frameAsks } = setup({});
    frameAsks.noteAsked({ tabId: 4, frameId: 0, documentId: 'doc' }, ['10.0.0.9']);
    const reply = await route({ type: 'cs:copy-stix', payload: { ip: '10.0.0.9' } }, fromTab(4));
    expect(reply).toMatchObject({ ok: false, error: { message: NOTHING_TO_EXPORT } });
  });
});

describe('Copy IP as STIX 2.1 (context menu)', () => {
  function menuSetup() {
    const fake = fakePageApi();
    const answer = found('185.220.101.4', { score: 91 });
    const { stix, lookup } = setup({ '185.220.101.4': answer });
    const page = createPageHandlers({ lookup: { lookup }, api: fake.api, sites: memorySites(), selectionWarmupMs: 20, stix });
    page.start();
    return { fake, lookup };
  }

  it('copies the first IP of the selection as a STIX bundle, looked up as a manual lookup', async () => {
    const { fake, lookup } = menuSetup();
    fake.events.onClicked.fire({ menuItemId: MENU_COPY_STIX, selectionText: 'src=185.220.101.4 dst=10.0.0.1', frameId: 2 }, { id: 9 });
    await vi.waitFor(() => expect(fake.copied).toHaveLength(1));
    expect(lookup).toHaveBeenCalledWith(['185.220.101.4'], { priority: 'manual' });
    expect(fake.copied[0]).toMatchObject({ tabId: 9, frameId: 2 });
    expect(stixViolations(JSON.parse(fake.copied[0]!.text))).toEqual([]);
    expect(fake.shown).toEqual([]);
  });

  it('opens the selection card (with its Copy as STIX button) when the page refuses the clipboard', async () => {
    const { fake } = menuSetup();
    fake.clipboard.allowed = false;
    fake.events.onClicked.fire({ menuItemId: MENU_COPY_STIX, selectionText: '185.220.101.4', frameId: 0 }, { id: 9 });
    await vi.waitFor(() => expect(fake.shown).toHaveLength(1));
    expect(fake.shown[0]).toEqual({ tabId: 9, frameId: 0, text: '185.220.101.4' });
  });
});
