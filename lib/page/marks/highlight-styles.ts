/**
 * The `::highlight()` rules for each severity. Colours are mid-lightness so they read on white
 * and on the dark themes SIEM consoles default to; the marks never change the text colour, so
 * the page's own contrast is kept. Line style differs by severity so colour is not the only cue.
 */
import { highlightName, type Severity } from '../../severity';

export type MarkStyle = 'underline' | 'background';

interface Look {
  colour: string;
  line: 'solid' | 'double' | 'dashed' | 'dotted' | 'wavy';
  thickness: number;
  /** Alpha of the background fill in `background` mode (0: none). */
  fill: number;
}

const LOOKS: Record<Severity, Look> = {
  critical: { colour: '229 57 53', line: 'solid', thickness: 3, fill: 0.4 },
  high: { colour: '245 124 0', line: 'solid', thickness: 2, fill: 0.38 },
  medium: { colour: '240 180 0', line: 'dashed', thickness: 2, fill: 0.35 },
  low: { colour: '66 133 244', line: 'dotted', thickness: 2, fill: 0.3 },
  clean: { colour: '46 160 67', line: 'solid', thickness: 1, fill: 0.25 },
  whitelisted: { colour: '20 184 166', line: 'double', thickness: 1, fill: 0.25 },
  // Magenta and wavy: unlike any verdict, so a failed lookup is never read as "clean" or "unknown".
  failed: { colour: '194 24 91', line: 'wavy', thickness: 1, fill: 0.22 },
  unknown: { colour: '140 140 140', line: 'dotted', thickness: 1, fill: 0.22 },
  // Violet and dashed, 2 px: a public address waiting for the analyst's click, never the grey
  // dotted line of a private one ("skipped") nor the thin grey dash of "pending".
  capped: { colour: '126 87 194', line: 'dashed', thickness: 2, fill: 0.2 },
  skipped: { colour: '140 140 140', line: 'dotted', thickness: 1, fill: 0 },
  pending: { colour: '140 140 140', line: 'dashed', thickness: 1, fill: 0.12 },
};

function declarations(severity: Severity, style: MarkStyle): string {
  const look = LOOKS[severity];
  // Each style also resets the other's property: the background rules are adopted over the
  // static underline sheet (entrypoints/content/marks.css) and must cancel it.
  const decl =
    style === 'background' && look.fill > 0
      ? `background-color: rgb(${look.colour} / ${look.fill}); text-decoration: none;`
      : `text-decoration: underline ${look.line} rgb(${look.colour}); text-decoration-thickness: ${look.thickness}px; text-underline-offset: 2px;`;
  return decl;
}

/**
 * Why `:root::highlight()` and not `::highlight()`: a universal highlight
 * rule matches every element, and Chromium then gives each element its own copy of two style
 * groups (~240 bytes an element: 1.2 MB on the 5,000-row storm page, measured with
 * test/bench/heap-summary.ts). Chromium's highlight inheritance (the custom highlight style of
 * an element with no rule of its own is its parent's) makes one rule on the root mark the text
 * of every element, in cells, inline blocks, positioned boxes and shadow trees alike (`:host`
 * covers a shadow root whose sheet we adopt). Firefox 153 has no highlight inheritance: there
 * the root rule reaches only the root's own text, so the universal rules stay, for Firefox
 * only (`-moz-appearance` is Gecko's; Chromium does not parse it).
 */
export function highlightCss(severities: readonly Severity[], style: MarkStyle): string {
  const root = severities.map((s) => {
    const name = highlightName(s);
    return `:root::highlight(${name}), :host::highlight(${name}) { ${declarations(s, style)} }`;
  });
  const universal = severities.map((s) => `  ::highlight(${highlightName(s)}) { ${declarations(s, style)} }`);
  return [...root, '@supports (-moz-appearance: none) {', ...universal, '}'].join('\n');
}
