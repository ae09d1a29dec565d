/**
 * RFC 4180 CSV that is safe to open in a spreadsheet. IPs and reputations come from pages and
 * an API we do not control, so a cell such as `=HYPERLINK(...)` must not become a formula:
 * cells starting with = + - @ tab or CR get a leading apostrophe (OWASP "CSV injection").
 */
import { showBidiControls } from '../visible-text';

export type CsvCell = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  // Bidi controls would reorder the cell in a spreadsheet: written as visible markers instead.
  let text = showBidiControls(String(value));
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  const lines = [header, ...rows].map((row) => row.map(csvCell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
