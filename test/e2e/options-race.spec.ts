/**
 * Fast edits on the options page, in real Chromium: random sequences of clicks, Space and Enter,
 * 0-50 ms apart (a double click, a key held down), on every checkbox, radio and select that
 * saves a setting. After the saves settle, what the page shows must be what the analyst left on
 * screen, and storage (chrome.storage.local, what the background reads) must hold exactly that.
 * A privacy toggle such as "Send private IPs" that ends stored on while shown off sends private
 * addresses to the API.
 */
import type { Page, Worker } from '@playwright/test';
import { seededRandom } from '../seeded-random';
import { expect, serviceWorkerOf, test } from './fixtures';
import { extensionUrl } from './ui-helpers';

/** The worker's storage, as the page functions below use it. */
declare const chrome: {
  storage: { local: { get(k: null): Promise<Record<string, unknown>>; set(items: object): Promise<void> } };
};

const SEEDS = (process.env.RACE_SEEDS ?? '2,3').split(',').map(Number);
const STEPS = 14;
const WRITE_DELAY_MS = 300;

type Action = 'click' | 'Space' | 'Enter';

interface Shown {
  sendPrivate: boolean;
  automatic: boolean;
  markStyle: string;
  pivots: Record<string, boolean>;
  authHeader: string;
}

/** One control and what an action on it does to the settings the analyst means to leave. */
interface Control {
  id: string;
  apply(state: Shown, action: Action): void;
}

/** A checkbox flips on a click or Space; Enter does nothing to it. */
function checkbox(id: string, flip: (state: Shown) => void): Control {
  return { id, apply: (state, action) => (action === 'Enter' ? undefined : flip(state)) };
}

/** A radio is chosen by a click or Space (on the focused radio); Enter does nothing. */
function radio(id: string, value: string): Control {
  return { id, apply: (state, action) => (action === 'Enter' ? undefined : void (state.markStyle = value)) };
}

/** What the page shows now. */
async function readShown(page: Page): Promise<Shown> {
  return page.evaluate(() => {
    const checked = (id: string) => (document.getElementById(id) as HTMLInputElement).checked;
    const pivots: Record<string, boolean> = {};
    for (const box of document.querySelectorAll<HTMLInputElement>('.pivot-item input[type=checkbox]')) {
      pivots[box.id.replace(/^pivot-|-on$/g, '')] = box.checked;
    }
    return {
      sendPrivate: checked('policy-send-private'),
      automatic: checked('policy-automatic'),
      markStyle: (document.querySelector('input[name=mark-style]:checked') as HTMLInputElement).value,
      pivots,
      authHeader: (document.getElementById('auth-header') as HTMLSelectElement).value,
    };
  });
}

/** What storage holds (an absent item is its default, which the page showed at load). */
async function readStored(worker: Worker, defaults: Shown): Promise<Shown> {
  const all = (await worker.evaluate(() => chrome.storage.local.get(null))) as Record<string, unknown>;
  const policy = all.lookupPolicy as { sendPrivate: boolean; automatic: boolean } | undefined;
  const pivots = all.pivots as { id: string; enabled: boolean }[] | undefined;
  return {
    sendPrivate: policy?.sendPrivate ?? defaults.sendPrivate,
    automatic: policy?.automatic ?? defaults.automatic,
    markStyle: (all.markStyle as string | undefined) ?? defaults.markStyle,
    pivots: pivots ? Object.fromEntries(pivots.map((p) => [p.id, p.enabled])) : defaults.pivots,
    authHeader: (all.authHeader as string | undefined) ?? defaults.authHeader,
  };
}

/**
 * Raw input, as fast as a person's double click: the mouse at the control's centre (the page is
 * tall enough that nothing scrolls), keys to the focused control. Locator clicks wait for
 * actionability first, which spaces the steps too far apart to race.
 */
async function act(page: Page, selector: string, action: Action): Promise<void> {
  if (action === 'click') {
    const box = await page.evaluate((selector) => {
      const r = document.querySelector(selector)!.getBoundingClientRect();
      return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
    }, selector);
    await page.mouse.click(box.x, box.y);
    return;
  }
  await page.evaluate((selector) => document.querySelector<HTMLElement>(selector)!.focus(), selector);
  await page.keyboard.press(action);
}

async function pause(page: Page, random: () => number): Promise<void> {
  const ms = Math.floor(random() * 51);
  if (ms) await page.waitForTimeout(ms);
}

/**
 * Every storage write in the background waits a while first, as when the worker is busy or
 * wakes from idle (the analyst's report saw saves land about 2 s late): fast steps then fall
 * while a save is still on its way, which is where writes race.
 */
async function slowWrites(worker: Worker): Promise<void> {
  await worker.evaluate((ms) => {
    const local = chrome.storage.local;
    const set = local.set.bind(local);
    local.set = (items) =>
      new Promise<void>((resolve) => setTimeout(resolve, ms)).then(() => set(items));
  }, WRITE_DELAY_MS);
}

/** Saves are over: no section says "Saving…" and the API form is idle. */
async function settled(page: Page): Promise<void> {
  await expect(page.getByText('Saving…')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeEnabled();
}

for (const seed of SEEDS) {
  test(`fast toggles store what the analyst left on screen (seed ${seed})`, async ({ context, extensionId }) => {
    const worker = await serviceWorkerOf(context);
    const page = await context.newPage();
    // Tall enough that every control is on screen: the mouse clicks where it is, unscrolled.
    await page.setViewportSize({ width: 1280, height: 3200 });
    await page.goto(extensionUrl(extensionId, 'options.html'));
    await expect(page.getByLabel('Send private IPs')).toBeVisible();
    const defaults = await readShown(page);
    const random = seededRandom(seed);
    await slowWrites(worker);

    const pivotIds = Object.keys(defaults.pivots);
    const controls: Control[] = [
      checkbox('policy-send-private', (s) => (s.sendPrivate = !s.sendPrivate)),
      checkbox('policy-automatic', (s) => (s.automatic = !s.automatic)),
      radio('mark-underline', 'underline'),
      radio('mark-background', 'background'),
      ...pivotIds.map((p) => checkbox(`pivot-${p}-on`, (s) => (s.pivots[p] = !s.pivots[p]))),
    ];
    const meant: Shown = structuredClone(defaults);
    const log: string[] = [];
    const actions: Action[] = ['click', 'Space', 'Enter'];
    for (let i = 0; i < STEPS; i++) {
      const control = controls[Math.floor(random() * controls.length)]!;
      const action = actions[Math.floor(random() * actions.length)]!;
      log.push(`${control.id}:${action}`);
      await act(page, `#${control.id}`, action);
      control.apply(meant, action);
      await pause(page, random);
    }
    const steps = `seed ${seed}: ${log.join(' ')}`;
    await settled(page);
    await expect.poll(() => readStored(worker, defaults), { message: steps }).toEqual(meant);
    // The page shows it too: it did not change by itself when the saves came back.
    expect(await readShown(page), steps).toEqual(meant);

    // The header select saves with "Save" (with the URL and key): picks, arrow keys and Save
    // presses in a random mix, then a last Save.
    const selectLog: string[] = [];
    for (let i = 0; i < STEPS; i++) {
      const r = random();
      if (r < 0.3) {
        const value = random() < 0.5 ? 'authorization' : 'x-api-key';
        selectLog.push(`pick:${value}`);
        await page.locator('#auth-header').selectOption(value);
        meant.authHeader = value;
      } else if (r < 0.6) {
        // On Linux a closed select steps through its options with the arrow keys.
        const down = random() < 0.5;
        selectLog.push(down ? 'ArrowDown' : 'ArrowUp');
        await page.evaluate(() => document.getElementById('auth-header')!.focus());
        await page.keyboard.press(down ? 'ArrowDown' : 'ArrowUp');
        meant.authHeader = down ? 'x-api-key' : 'authorization';
      } else {
        selectLog.push('Save');
        await act(page, '#api-heading ~ form button[type=submit]', 'click');
      }
      await pause(page, random);
    }
    const selectSteps = `seed ${seed}: ${selectLog.join(' ')}`;
    await settled(page);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await settled(page);
    await expect.poll(async () => (await readStored(worker, defaults)).authHeader, { message: selectSteps }).toBe(meant.authHeader);
    await expect(page.locator('#auth-header'), selectSteps).toHaveValue(meant.authHeader);
    await expect(page.getByText('You have unsaved changes.')).toHaveCount(0);
  });
}
