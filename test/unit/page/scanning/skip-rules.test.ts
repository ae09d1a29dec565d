// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { couldHoldIp, isInsideSkipped, mayHostShadow } from '@/lib/page/scanning/skip-rules';
import { findIps } from '@/lib/ip';

describe('couldHoldIp (the scanner\'s cheap character test)', () => {
  it('lets through every text findIps can read an address in, defanged ones included', () => {
    for (const text of [
      '1.2.3.4',
      '::1',
      'C2 1[.]2[.]3[.]4 seen',
      'C2 185[dot]220[dot]101[dot]1 seen twice',
      'scanner 45(dot)155(dot)205(dot)233',
      'resolver 9{DOT}9{DOT}9{DOT}9',
      'mixed 23[Dot]129[dot]64[dot]130',
    ]) {
      expect(couldHoldIp(text), text).toBe(true);
      expect(findIps(text).length, text).toBeGreaterThan(0);
    }
  });

  it('still skips text with no dot, no colon and no word dot', () => {
    for (const text of ['', 'ab', 'Severity high', 'dotted line without brackets and long enough', 'event 42 (dotnet) [DOTS]', '1[dot]2']) {
      expect(couldHoldIp(text), text).toBe(false);
    }
  });
});

describe('isInsideSkipped with the answers of one synchronous run', () => {
  // A live tail's re-render queues 20,000 text nodes; their walks to the document shared all
  // but their parent, ~25 ms a render of ancestor checks (bench page-profile).
  it('stops at the first element already answered, and answers as the full walk does', () => {
    document.body.innerHTML = '<ul><li><span>1.2.3.4</span><span>5.6.7.8</span></li></ul><div contenteditable><p><b>9.9.9.9</b><i>8.8.8.8</i></p></div>';
    const looked: Element[] = [];
    const options = { isOwnUi: (el: Element) => (looked.push(el), false) };
    const known = new Map<Node, boolean>();
    const texts = [...document.querySelectorAll('span, b, i')].map((el) => el.firstChild!);
    const answers = texts.map((t) => isInsideSkipped(t, options, known));
    expect(answers).toEqual([false, false, true, true]);
    // Asked: span, li, ul, body, html; the second span; b, p (the editable div answers by
    // itself); i. Without the answers, every walk goes to the document or the editable div.
    expect(looked).toHaveLength(5 + 1 + 2 + 1);
    looked.length = 0;
    expect(texts.map((t) => isInsideSkipped(t, options))).toEqual(answers);
    expect(looked).toHaveLength(5 + 5 + 2 + 2);
  });
});

describe('mayHostShadow (the elements attachShadow accepts)', () => {
  it('names them in HTML (upper case) and XHTML (lower case), and custom elements', () => {
    for (const tag of ['DIV', 'span', 'SECTION', 'h6', 'BODY', 'X-CARD', 'ag-grid-angular']) expect(mayHostShadow(tag)).toBe(true);
    for (const tag of ['TD', 'tr', 'TABLE', 'A', 'LI', 'PRE', 'BUTTON', 'IMG']) expect(mayHostShadow(tag)).toBe(false);
  });

});
