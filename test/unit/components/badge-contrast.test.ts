/**
 * The severity badges' colours, read from the stylesheet itself: every badge's text is at least
 * 4.5:1 on its background (WCAG 2.2 AA for text), and no two severities share a background.
 * axe-core checks the rendered pages in the e2e suite; this names the failing colour at once.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const css = readFileSync('components/reputation-details.css', 'utf8');
const ui = readFileSync('components/ui.css', 'utf8');

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

/** `.sev-x { background: #...; color: #... }` rules outside media queries. */
function solidBadges(): { name: string; background: string; color: string }[] {
  const short = /\.sev-badge \{[^}]*?[\s;]color: #([0-9a-f]{3})\b/i.exec(css)![1]!;
  const defaultColor = `#${[...short].map((c) => c + c).join('')}`;
  return [...css.matchAll(/^\.sev-([a-z]+) \{ background: (#[0-9a-f]{6});(?: color: (#[0-9a-f]{6});)? \}/gim)].map((m) => ({
    name: m[1]!,
    background: m[2]!.toLowerCase(),
    color: (m[3] ?? defaultColor).toLowerCase(),
  }));
}

function variable(name: string, dark: boolean): string {
  const block = dark ? ui.slice(ui.indexOf('prefers-color-scheme: dark')) : ui;
  return new RegExp(`--${name}: (#[0-9a-f]{6})`, 'i').exec(block)![1]!;
}

describe('severity badge colours', () => {
  it('give every filled badge text of at least 4.5:1', () => {
    const badges = solidBadges();
    expect(badges.map((b) => b.name)).toEqual(['critical', 'high', 'medium', 'low', 'clean', 'whitelisted', 'failed', 'unknown']);
    for (const b of badges) expect(`${b.name} ${contrast(b.color, b.background).toFixed(2)}`).toMatch(/ (4\.[5-9]|[5-9]\.|\d\d\.)/);
  });

  it('keep each severity apart: no two share a background', () => {
    const backgrounds = solidBadges().map((b) => b.background);
    expect(new Set(backgrounds).size).toBe(backgrounds.length);
  });

  it('draw outlined badges (not looked up, looking up) in the muted text colour, legible in light and dark', () => {
    expect(css).toMatch(/\.sev-skipped \{[^}]*color: var\(--rep-muted, var\(--muted, #5c6270\)\)/);
    for (const dark of [false, true]) {
      expect(contrast(variable('muted', dark), variable('bg', dark))).toBeGreaterThanOrEqual(4.5);
      expect(contrast(variable('muted', dark), variable('panel', dark))).toBeGreaterThanOrEqual(4.5);
    }
    expect(contrast('#5e35b1', variable('bg', false))).toBeGreaterThanOrEqual(4.5);
    expect(css).toMatch(/prefers-color-scheme: dark\) \{ \.sev-capped \{ color: (#b39ddb)/);
    expect(contrast('#b39ddb', variable('bg', true))).toBeGreaterThanOrEqual(4.5);
  });
});
