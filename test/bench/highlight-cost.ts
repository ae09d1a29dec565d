/**
 * What one change to a highlight costs the browser, by mark style and page size: why the
 * highlighter batches the marks off screen (lib/page/marks/paint-throttle.ts).
 *
 * A still table of N rows (eight cells each, as a console's) is scrolled a little every frame,
 * as an analyst reading it, and every 300 ms one range is added to a registered highlight (the
 * content script marking a row that came near). Per variant, from a trace of the page's main
 * thread: PrePaint and Paint thread time over the window, and per highlight change beyond the
 * same page scrolled with no change. Chromium rebuilds every highlight marker in a frame where
 * a highlight changed; with a text decoration (our underline) it also invalidates each marked
 * text's ink overflow, and the table then recomputes its overflow over all its rows. Compare
 * the lines of one run: absolute times move with the shared machine's load.
 *
 *   npm run bench highlight-cost
 *   HIGHLIGHT_ROWS (default 1000,5000,20000): table sizes; HIGHLIGHT_WINDOW_MS (default 5,000)
 */
import { chromium, type Browser } from '@playwright/test';
import { BASE_CHROMIUM_ARGS, chromiumExecutable } from '../e2e/chromium';
import { startTrace, threadMs, VIEWPORT, type TraceEvent } from './page';

const ROWS = (process.env.HIGHLIGHT_ROWS ?? '1000,5000,20000').split(',').map(Number);
const WINDOW_MS = Number(process.env.HIGHLIGHT_WINDOW_MS ?? 5_000);
const CHANGE_EVERY_MS = 300;

const STYLES = {
  underline: 'text-decoration: underline solid rgb(229 57 53); text-decoration-thickness: 2px',
  background: 'background-color: rgb(229 57 53 / 0.4)',
} as const;

interface Variant {
  name: string;
  style: string;
  /** Whether a range is added every CHANGE_EVERY_MS. */
  changes: boolean;
}

const VARIANTS: Variant[] = [
  { name: 'no change', style: STYLES.underline, changes: false },
  { name: 'underline', style: STYLES.underline, changes: true },
  { name: 'background', style: STYLES.background, changes: true },
];

function pageHtml(rows: number, v: Variant): string {
  return `<!doctype html><html><head><style>td { padding: 2px 6px; font: 13px sans-serif }
:root::highlight(bench) { ${v.style} }</style></head><body><table><tbody id="rows"></tbody></table><script>
const body = document.getElementById('rows');
for (let i = 0; i < ${rows}; i++) {
  const tr = body.insertRow();
  for (const text of [i + 's ago', '10.' + ((i >> 8) & 255) + '.' + (i & 255) + '.1', 'event ' + i, 'a', 'b', 'c', 'd', 'e']) tr.insertCell().textContent = text;
}
const mark = new Highlight();
CSS.highlights.set('bench', mark);
window.benchStart = () => {
  const step = () => { scrollBy(0, 12); requestAnimationFrame(step); };
  requestAnimationFrame(step);
  ${v.changes ? `const rowHeight = body.rows[1].getBoundingClientRect().top - body.rows[0].getBoundingClientRect().top;
  setInterval(() => {
    const row = body.rows[Math.min(${rows - 1}, Math.floor((scrollY + innerHeight + 200) / rowHeight))];
    const text = row.cells[1].firstChild;
    const range = new Range();
    range.setStart(text, 0);
    range.setEnd(text, text.data.length);
    mark.add(range);
  }, ${CHANGE_EVERY_MS});` : ''}
};
</script></body></html>`;
}

/** PrePaint and Paint thread ms on the page's main thread over one traced window. */
async function measure(browser: Browser, rows: number, v: Variant): Promise<{ prePaint: number; paint: number }> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  try {
    await page.setContent(pageHtml(rows, v));
    await page.waitForTimeout(500);
    await page.evaluate(() => (window as unknown as { benchStart: () => void }).benchStart());
    const stopTrace = await startTrace(await page.context().newCDPSession(page));
    await page.waitForTimeout(WINDOW_MS);
    type Event = TraceEvent & { pid: number; args?: { name?: string } };
    const events = (await stopTrace()) as Event[];
    const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
    if (!main) throw new Error('no renderer main thread in the trace');
    const sum = (name: string) =>
      events.filter((e) => e.ph === 'X' && e.name === name && e.tid === main.tid && e.pid === main.pid).reduce((a, e) => a + threadMs(e), 0);
    return { prePaint: sum('PrePaint'), paint: sum('Paint') };
  } finally {
    await page.close();
  }
}

export async function run(): Promise<void> {
  const browser = await chromium.launch({ executablePath: chromiumExecutable(), headless: true, args: BASE_CHROMIUM_ARGS });
  const changes = Math.floor(WINDOW_MS / CHANGE_EVERY_MS);
  try {
    console.log(`  one range added every ${CHANGE_EVERY_MS} ms (~${changes} changes) while scrolling, ${WINDOW_MS} ms traced; thread ms`);
    for (const rows of ROWS) {
      const base = await measure(browser, rows, VARIANTS[0]!);
      const per: string[] = [];
      for (const v of VARIANTS.slice(1)) {
        const m = await measure(browser, rows, v);
        per.push(
          `${v.name}: PrePaint ${m.prePaint.toFixed(0)}, Paint ${m.paint.toFixed(0)}; per change beyond no change: PrePaint ${((m.prePaint - base.prePaint) / changes).toFixed(1)}, Paint ${((m.paint - base.paint) / changes).toFixed(1)}`,
        );
      }
      console.log(`  ${rows} rows: no change PrePaint ${base.prePaint.toFixed(0)}, Paint ${base.paint.toFixed(0)}`);
      for (const line of per) console.log(`    ${line}`);
    }
  } finally {
    await browser.close();
  }
}
