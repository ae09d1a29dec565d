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
