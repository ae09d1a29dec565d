/**
 * RFC 4180 CSV that is safe to open in a spreadsheet. IPs and reputations come from pages and
 * an API we do not control, so a cell such as `=HYPERLINK(...)` must not become a formula
 * (OWASP "CSV injection"). Spreadsheets skip leading whitespace and fold look-alike characters
 * before they decide, so the check does too: a cell whose first character, after Unicode NFKC
 * normalisation (full-width ＝ becomes =) and past any leading whitespace or invisible
 * characters, is a formula trigger gets a leading apostrophe, which shows as text and keeps the
 * rest of the value as it was. Tab and CR are triggers themselves.
 */
import { showBidiControls } from '../../visible-text';

export type CsvCell = string | number | boolean | null | undefined;

/** Whitespace and invisible characters a spreadsheet may skip before the first real one. */
const LEADING_BLANKS = /^[\s\u00a0\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u3000\ufeff]+/u;
/**
 * = + - @ after NFKC, and dashes and minus signs NFKC leaves alone but a spreadsheet may read
 * as a minus (U+2010-2015, U+2212, U+FE58, U+FE63).
 */
const TRIGGER = /^[=+\-@\u2010-\u2015\u2212\ufe58\ufe63]/u;

/** Whether a spreadsheet could read this text as the start of a formula. */
export function opensFormula(text: string): boolean {
  if (/^[\t\r]/.test(text)) return true;
  return TRIGGER.test(text.normalize('NFKC').replace(LEADING_BLANKS, ''));
}

export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  // Bidi controls would reorder the cell in a spreadsheet: written as visible markers instead.
  let text = showBidiControls(String(value));
  // A number is written as digits: never a formula (and "-3" stays a number).
  if (typeof value === 'string' && opensFormula(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  const lines = [header, ...rows].map((row) => row.map(csvCell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
