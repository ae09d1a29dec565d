/**
 * The one-off scan's restyle, by rule subject: on the loaded 10,000-row
 * fixture, in one task, adopt a sheet of eleven `::highlight()` rules and put one on-screen
 * address in a highlight (what the content script's first marks do), then measure the frame
 * that follows: its style recalculation from a trace (thread time and how many elements it
 * restyled) and the rendering-only long frame (LoAF) it makes, and whether the mark is drawn
 * (the cell's pixels differ from before). One fresh page per measurement, variants interleaved.
 *
 * RESTYLE_NO_MARK=1: the sheet adopted with no highlight registered (CSS.highlights empty): does
 * adopting it before any mark exists restyle less?
 *
 * RESTYLE_MODE=change: with the sheet adopted and settled first, the frame after adding the
 * on-screen addresses (rows 1-30, three a row) to a highlight, by trace event (what a frame in
 * which our marks change costs once the styles are in place, as on a registered site).
 *
 *   npx tsx test/bench/restyle-experiment.ts
 *   RESTYLE_ROUNDS=3 (default), RESTYLE_VARIANTS=none,current,html (default: all), RESTYLE_MODE.
 */
import { chromium, type Browser } from '@playwright/test';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SEVERITIES } from '../../lib/severity';
import { highlightName } from '../../lib/severity';
import { highlightCss } from '../../lib/page/marks/highlight-styles';
import { BASE_CHROMIUM_ARGS, chromiumExecutable } from '../e2e/chromium';
import { median, startTrace, VIEWPORT, type TraceEvent } from './page';

const ROUNDS = Number(process.env.RESTYLE_ROUNDS ?? 3);
const URL_ = pathToFileURL(path.resolve('test/fixtures/siem/big-table.html')).href;
const DECL = 'text-decoration: underline solid rgb(229 57 53); text-decoration-thickness: 3px; text-underline-offset: 2px;';
const rules = (subject: string) => SEVERITIES.map((s) => `${subject}::highlight(${highlightName(s)}) { ${DECL} }`).join('\n');

/**
 * Sheets to adopt; `null`: none (the control: the highlight alone). `pre`: sheets adopted before
 * the measured one, each in a frame of its own, untimed (does a later sheet cost less?).
 */
type Variant = string | null | { pre: string[]; last: string };
const chunk = (nth: string) => `@scope (tbody > tr${nth}) { ${rules(':scope')} }`;
const VARIANTS: Record<string, Variant> = {
  none: null,
  current: highlightCss(SEVERITIES, 'underline'),
  universal: rules(''),
  root: rules(':root'),
  host: rules(':host'),
  html: rules('html'),
  body: rules('body'),
  td: rules('td'),
  never: rules('[data-never-here]'),
  root1: `:root::highlight(ip-rep-critical) { ${DECL} }`,
  root3: rules(':root').split('\n').slice(0, 3).join('\n'),
  rootvar: ':root { --ip-rep-probe: 1; }',
  nthtr: rules('tr:nth-child(-n+30)'),
  scope: `@scope (tbody > tr:nth-child(-n+30)) { ${rules(':scope')} }`,
  chunk: chunk(':nth-child(-n+3333)'),
  chunkedHtml: { pre: [chunk(':nth-child(-n+3333)'), chunk(':nth-child(n+3334):nth-child(-n+6666)'), chunk(':nth-child(n+6667)')], last: rules('html') },
  chunkedRoot: { pre: [chunk(':nth-child(-n+3333)'), chunk(':nth-child(n+3334):nth-child(-n+6666)'), chunk(':nth-child(n+6667)')], last: highlightCss(SEVERITIES, 'underline') },
};

interface Sample {
  styleMs: number;
  styleThreadMs: number;
  elements: number;
  /** Style recalculations in the trace after the change. */
  passes: number;
  loafMs: number;
  drawn: boolean;
}

async function measureOnce(browser: Browser, variant: Variant): Promise<Sample> {
  const css = variant !== null && typeof variant === 'object' ? variant.last : variant;
  const pre = variant !== null && typeof variant === 'object' ? variant.pre : [];
  const page = await browser.newPage({ viewport: VIEWPORT });
  try {
    await page.goto(URL_, { timeout: 180_000 });
    await page.waitForLoadState('load');
    // Settle: the page's own first layout and paint are done before we start.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 300)))));
    const cell = page.locator('#events tr:nth-child(3) td:nth-child(3)');
    const box = (await cell.boundingBox())!;
    const clip = { x: box.x, y: box.y, width: box.width, height: box.height };
    const before = await page.screenshot({ clip });
    for (const text of pre) {
      await page.evaluate(async (t) => {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(t);
        document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      }, text);
    }
    const cdp = await page.context().newCDPSession(page);
    const stop = await startTrace(cdp);
    const loaf = await page.evaluate(async ([text, mark]) => {
      const frames: number[] = [];
      new PerformanceObserver((l) => {
        for (const e of l.getEntries() as unknown as { startTime: number; duration: number; scripts: unknown[] }[]) if (e.startTime >= t0 && !e.scripts.length) frames.push(e.duration);
      }).observe({ type: 'long-animation-frame' });
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      console.timeStamp('restyle-start');
      const t0 = performance.now();
      if (text !== null) {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(text);
        document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
      }
      if (mark) {
        const td = document.querySelector('#events tr:nth-child(3) td:nth-child(3)')!;
        const range = new Range();
        range.selectNodeContents(td.firstChild!);
        CSS.highlights.set('ip-rep-critical', new Highlight(range));
      }
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 100))));
      return Math.max(0, ...frames);
    }, [css, !process.env.RESTYLE_NO_MARK] as const);
    const events: TraceEvent[] = await stop();
    const start = events.find((e) => e.name === 'TimeStamp' && e.args?.data?.message === 'restyle-start')!;
    const styles = events.filter((e) => e.ph === 'X' && e.tid === start.tid && e.ts >= start.ts && (e.name === 'UpdateLayoutTree' || e.name === 'RecalculateStyles'));
    const after = await page.screenshot({ clip });
    return {
      styleMs: styles.reduce((s, e) => s + (e.dur ?? 0), 0) / 1000,
      styleThreadMs: styles.reduce((s, e) => s + (e.tdur ?? e.dur ?? 0), 0) / 1000,
      elements: styles.reduce((s, e) => s + (e.args?.elementCount ?? e.args?.data?.elementCount ?? 0), 0),
      passes: styles.length,
      loafMs: loaf,
      drawn: !before.equals(after),
    };
  } finally {
    await page.close();
  }
}

/** Thread time by trace event name, ms, of the frame after adding 90 on-screen ranges. */
async function measureChange(browser: Browser, variant: Variant): Promise<Map<string, number>> {
  const css = variant !== null && typeof variant === 'object' ? variant.last : variant;
  const page = await browser.newPage({ viewport: VIEWPORT });
  try {
    await page.goto(URL_, { timeout: 180_000 });
    await page.waitForLoadState('load');
    await page.evaluate(async (text) => {
      if (text !== null) {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(text);
        document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
      }
      const range = new Range();
      range.selectNodeContents(document.querySelector('#events td')!.firstChild!);
      CSS.highlights.set('ip-rep-critical', new Highlight(range));
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 300))));
    }, css);
    const cdp = await page.context().newCDPSession(page);
    const stop = await startTrace(cdp);
    await page.evaluate(async () => {
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      console.timeStamp('change-start');
      const h = CSS.highlights.get('ip-rep-critical')!;
      const rows = document.querySelectorAll('#events tr');
      for (let i = 0; i < 30; i++) {
        for (const c of [2, 3, 5]) {
          const r = new Range();
          r.selectNodeContents(rows[i]!.children[c]!.firstChild!);
          h.add(r);
        }
      }
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 100))));
      console.timeStamp('change-end');
    });
    const events: TraceEvent[] = await stop();
    const stamp = (m: string) => events.find((e) => e.name === 'TimeStamp' && e.args?.data?.message === m)!;
    const from = stamp('change-start');
    const to = stamp('change-end');
    const byName = new Map<string, number>();
    for (const e of events) {
      if (e.ph !== 'X' || e.tid !== from.tid || e.ts < from.ts || e.ts > to.ts) continue;
      if (!['UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'Layerize', 'UpdateLayer', 'Commit', 'HitTest', 'RunTask'].includes(e.name)) continue;
      byName.set(e.name, (byName.get(e.name) ?? 0) + (e.tdur ?? e.dur ?? 0) / 1000);
    }
    return byName;
  } finally {
    await page.close();
  }
}

async function mainChange(names: string[]): Promise<void> {
  const browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: BASE_CHROMIUM_ARGS });
  const samples = new Map<string, Map<string, number>[]>(names.map((n) => [n, []]));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of names) samples.get(name)!.push(await measureChange(browser, VARIANTS[name]!));
    }
  } finally {
    await browser.close();
  }
  console.log(`frame after adding 90 on-screen ranges to a highlight, styles settled, ${ROUNDS} rounds: thread ms by trace event (median [per round]); RunTask is every task in the window`);
  for (const [name, s] of samples) {
    const keys = [...new Set(s.flatMap((m) => [...m.keys()]))].sort();
    console.log(`${name.padEnd(10)} ${keys.map((k) => `${k} ${median(s.map((m) => m.get(k) ?? 0)).toFixed(1)} [${s.map((m) => (m.get(k) ?? 0).toFixed(0)).join(' ')}]`).join('; ')}`);
  }
}

async function main(): Promise<void> {
  const only = process.env.RESTYLE_VARIANTS?.split(',');
  const names = Object.keys(VARIANTS).filter((v) => !only || only.includes(v));
  if (process.env.RESTYLE_MODE === 'change') return mainChange(names);
  const browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: BASE_CHROMIUM_ARGS });
  const samples = new Map<string, Sample[]>(names.map((n) => [n, []]));
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of names) samples.get(name)!.push(await measureOnce(browser, VARIANTS[name]!));
    }
  } finally {
    await browser.close();
  }
  console.log(`restyle after adopting eleven ::highlight() rules into the loaded 10,000-row page, ${ROUNDS} rounds (median; per round in brackets)`);
  console.log(`${'subject'.padEnd(10)} ${'style, thread'.padStart(14)} ${'style, wall'.padStart(12)} ${'elements'.padStart(9)} ${'LoAF (no script)'.padStart(17)}  drawn`);
  for (const [name, s] of samples) {
    const per = (f: (x: Sample) => number) => `${median(s.map(f)).toFixed(0)} [${s.map((x) => f(x).toFixed(0)).join(' ')}]`;
    console.log(`${name.padEnd(10)} ${per((x) => x.styleThreadMs).padStart(14)} ${per((x) => x.styleMs).padStart(12)} ${per((x) => x.elements).padStart(9)} ${per((x) => x.loafMs).padStart(17)}  ${s.map((x) => (x.drawn ? 'y' : 'n')).join('')}  passes ${s.map((x) => x.passes).join(' ')}`);
  }
}

void main();
