// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { highlightCss } from '@/lib/page/marks/highlight-styles';
import { Highlighter } from '@/lib/page/marks/highlighter';
import { SEVERITIES } from '@/lib/severity';
import { fakeHighlighterEnv } from '../dom-fakes';

const range = () => ({}) as AbstractRange;

describe('Highlighter', () => {
  it('registers one highlight per severity under the public names, riskier on top, with the first marks', () => {
    const env = fakeHighlighterEnv();
    const h = new Highlighter(env);
    // Not before: registering a highlight repaints the whole document, and a script that
    // starts as the page loads would do it in the page's own first frame.
    h.ensureInstalled();
    expect(env.names.size).toBe(0);
    h.set(range(), 'pending');
    expect([...env.names.keys()].sort()).toEqual(SEVERITIES.map((s) => `ip-rep-${s}`).sort());
    expect(env.names.get('ip-rep-critical')!.priority).toBeGreaterThan(env.names.get('ip-rep-low')!.priority);
  });

  it('moves a range between severities and removes it', () => {
    const env = fakeHighlighterEnv();
    const h = new Highlighter(env);
    const r = range();
    h.set(r, 'pending');
    expect(env.names.get('ip-rep-pending')!.has(r)).toBe(true);
    h.set(r, 'critical');
    expect(env.names.get('ip-rep-pending')!.has(r)).toBe(false);
    expect(env.names.get('ip-rep-critical')!.has(r)).toBe(true);
    expect(env.names.get('ip-rep-critical')!.size).toBe(1);
    h.remove(r);
    expect(env.names.get('ip-rep-critical')!.size).toBe(0);
    expect(h.severityOf(r)).toBeUndefined();
  });

  it('applies mark changes to the highlights in one batch per paint, and only their net effect', () => {
    const env = fakeHighlighterEnv();
    const paints: (() => void)[] = [];
    const h = new Highlighter({ ...env, schedulePaint: (apply) => paints.push(apply) });
    const [a, b, c] = [range(), range(), range()];
    h.set(a, 'pending');
    h.set(b, 'pending');
    h.set(c, 'pending');
    // The lens sees its marks at once; the page's highlights wait for the paint, asked once.
    expect(h.severityOf(a)).toBe('pending');
    expect(env.names.get('ip-rep-pending')?.size ?? 0).toBe(0);
    expect(paints).toHaveLength(1);
    paints.shift()!();
    expect([...env.names.get('ip-rep-pending')!]).toEqual([a, b, c]);

    h.set(a, 'high');
    h.set(a, 'critical');
    h.remove(b);
    h.remove(c);
    h.set(c, 'pending');
    const d = range();
    h.set(d, 'low');
    h.remove(d);
    expect(paints).toHaveLength(1);
    expect(env.names.get('ip-rep-pending')!.has(a)).toBe(true);
    expect(env.names.get('ip-rep-pending')!.has(b)).toBe(true);
    paints.shift()!();
    expect([...env.names.get('ip-rep-pending')!]).toEqual([c]);
    expect([...env.names.get('ip-rep-critical')!]).toEqual([a]);
    expect(env.names.get('ip-rep-high')!.size).toBe(0);
    expect(env.names.get('ip-rep-low')!.size).toBe(0);
    paints.length = 0;
    h.set(c, 'pending');
    expect(paints).toHaveLength(0);

    // A paint due after dispose does nothing.
    h.set(b, 'high');
    h.dispose();
    paints.shift()!();
    expect(env.names.size).toBe(0);
  });

  it('paints at once a range set on screen that is not painted yet, with every change waiting', () => {
    const env = fakeHighlighterEnv();
    const paints: (() => void)[] = [];
    const h = new Highlighter({ ...env, schedulePaint: (apply) => void paints.push(apply) });
    const [near, seen, other] = [range(), range(), range()];
    h.set(near, 'low');
    paints.shift()!();
    h.set(other, 'high');
    // Already painted under that severity: nothing to paint, the waiting change keeps waiting.
    h.set(near, 'low', true);
    expect(env.names.get('ip-rep-high')!.has(other)).toBe(false);
    h.set(seen, 'critical', true);
    expect(env.names.get('ip-rep-critical')!.has(seen)).toBe(true);
    expect(env.names.get('ip-rep-high')!.has(other)).toBe(true);
  });

  it('adopts its stylesheet into the document and shadow roots, and re-installs what the page removed', () => {
    const env = fakeHighlighterEnv();
    const h = new Highlighter(env);
    const pageSheet = new CSSStyleSheet();
    document.adoptedStyleSheets = [pageSheet];
    h.adoptInto(document);
    const host = document.createElement('div');
    document.body.append(host);
    const shadow = host.attachShadow({ mode: 'open' });
    h.adoptInto(shadow);
    expect(document.adoptedStyleSheets.length).toBe(2);
    expect(document.adoptedStyleSheets[0]).toBe(pageSheet);
    expect(shadow.adoptedStyleSheets.length).toBe(1);
    h.set(range(), 'pending');

    document.adoptedStyleSheets = [pageSheet];
    env.names.clear();
    h.ensureInstalled();
    expect(document.adoptedStyleSheets.length).toBe(2);
    expect(env.names.size).toBe(SEVERITIES.length);

    h.dispose();
    expect(document.adoptedStyleSheets).toEqual([pageSheet]);
    expect(shadow.adoptedStyleSheets).toEqual([]);
    expect(env.names.size).toBe(0);
  });

  it('checks a bounded number of shadow roots per call, all of them in turn (1,000-deep shadow pages)', () => {
    const h = new Highlighter(fakeHighlighterEnv());
    const shadows = Array.from({ length: 100 }, () => {
      const host = document.createElement('div');
      document.body.append(host);
      const shadow = host.attachShadow({ mode: 'open' });
      h.adoptInto(shadow);
      return shadow;
    });
    let reads = 0;
    for (const shadow of shadows) {
      const own = shadow.adoptedStyleSheets;
      let current = own;
      Object.defineProperty(shadow, 'adoptedStyleSheets', {
        get: () => (reads++, current),
        set: (v: CSSStyleSheet[]) => (current = v),
        configurable: true,
      });
    }
    // The page strips every root.
    for (const shadow of shadows) shadow.adoptedStyleSheets = [];
    h.ensureInstalled();
    // One call reads a few dozen roots (about 5 reads each), not all 100 (500 reads).
    expect(reads).toBeLessThan(250);
    expect(shadows.filter((s) => s.adoptedStyleSheets.length === 1).length).toBeLessThan(50);
    for (let i = 0; i < 3; i++) h.ensureInstalled();
    expect(shadows.every((s) => s.adoptedStyleSheets.length === 1)).toBe(true);
    h.dispose();
    document.body.replaceChildren();
  });

  it('writes underline or background rules for every highlight name', () => {
    const underline = highlightCss(SEVERITIES, 'underline');
    const background = highlightCss(SEVERITIES, 'background');
    for (const s of SEVERITIES) {
      expect(underline).toContain(`::highlight(ip-rep-${s})`);
      expect(background).toContain(`::highlight(ip-rep-${s})`);
    }
    expect(underline).toMatch(/ip-rep-critical\) \{ text-decoration: underline/);
    expect(background).toMatch(/ip-rep-critical\) \{ background-color: rgb/);
    // Marks never recolour the page's text: its own contrast stays.
    expect(underline + background).not.toMatch(/(^|[\s;{])color:/);
  });
});
