// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SubtreeWalk } from '@/lib/page/scanning/subtree-walk';

function collect(root: Node, isOwnUi?: (el: Element) => boolean) {
  const texts: string[] = [];
  const shadows: ShadowRoot[] = [];
  const walk = new SubtreeWalk(root, { text: (t) => texts.push(t.data) > 0, shadowRoot: (s) => shadows.push(s) }, isOwnUi ? { isOwnUi } : {});
  expect(walk.step(() => false)).toBe(true);
  return { texts, shadows };
}

describe('SubtreeWalk', () => {
  afterEach(() => {
    document.body.replaceChildren();
  });

  it('visits text in document order and skips code, styles, form fields and editable regions', () => {
    document.body.innerHTML = `
      <p>a 1.1.1.1</p>
      <script>var ip = "2.2.2.2"</script><style>/* 3.3.3.3 */</style><noscript>4.4.4.4</noscript>
      <textarea>5.5.5.5</textarea><select><option>6.6.6.6</option></select>
      <div contenteditable="true"><span>7.7.7.7</span></div>
      <div contenteditable="false">8.8.8.8</div>
      <div contenteditable>9.9.9.9</div>
      <td>10.0.0.1</td>`;
    const { texts } = collect(document.body);
    const ips = texts.map((t) => t.trim()).filter(Boolean);
    expect(ips).toEqual(['a 1.1.1.1', '8.8.8.8', '10.0.0.1']);
  });

  it('skips our own UI and reports open shadow roots', () => {
    document.body.innerHTML = '<p>one</p><ip-lens-host><b>own 1.2.3.4</b></ip-lens-host><x-card></x-card><p>two</p>';
    const host = document.querySelector('x-card')!;
    const shadow = host.attachShadow({ mode: 'open' });
    shadow.append('inside');
    const { texts, shadows } = collect(document.body, (el) => el.closest('ip-lens-host') !== null);
    expect(texts).toEqual(['one', 'two']);
    expect(shadows).toEqual([shadow]);
    // The shadow root is walked as a root of its own.
    expect(collect(shadow).texts).toEqual(['inside']);
  });

  it('hands each text over with the text it read and, for text that could hold an IP, its parent element', () => {
    document.body.innerHTML = '<p>no address</p><span><b>1.2.3.4</b></span>';
    const shadow = document.querySelector('p')!.attachShadow({ mode: 'open' });
    shadow.append('at 5.6.7.8');
    const seen: [string, string, Element | null][] = [];
    const visitor = { text: (t: Text, data: string, parent: Element | null) => seen.push([t.data, data, parent]) > 0, shadowRoot: () => {} };
    new SubtreeWalk(document.body, visitor).step(() => false);
    new SubtreeWalk(shadow, visitor).step(() => false);
    // Each read is a call into the DOM (in the content script's own world): the visitor reads neither again.
    expect(seen).toEqual([
      ['no address', 'no address', null],
      ['1.2.3.4', '1.2.3.4', document.querySelector('b')],
      ['at 5.6.7.8', 'at 5.6.7.8', null],
    ]);
  });

  it('reads shadowRoot only of elements that can host one', () => {
    document.body.innerHTML = '<table><tbody><tr><td>1.2.3.4</td><td><a href="#">x</a></td></tr></tbody></table><div></div><x-card></x-card>';
    const roots = ['div', 'x-card'].map((sel) => document.querySelector(sel)!.attachShadow({ mode: 'open' }));
    const owner = Object.getPrototypeOf(Object.getPrototypeOf(document.querySelector('td')!)) as object;
    let proto: object | null = owner;
    while (proto && !Object.getOwnPropertyDescriptor(proto, 'shadowRoot')) proto = Object.getPrototypeOf(proto);
    const descriptor = Object.getOwnPropertyDescriptor(proto!, 'shadowRoot')!;
    const read: string[] = [];
    const spy = vi.spyOn(proto as Element, 'shadowRoot', 'get').mockImplementation(function (this: Element) {
      read.push(this.tagName);
      return descriptor.get!.call(this) as ShadowRoot | null;
    });
    try {
      const { shadows } = collect(document.body);
      expect(shadows).toEqual(roots);
      // Table parts and links never host one: no call into the DOM for each of them.
      expect(read).toEqual(['DIV', 'X-CARD']);
    } finally {
      spy.mockRestore();
    }
  });

  it('resumes where it stopped when the time slice runs out', () => {
    document.body.innerHTML = Array.from({ length: 300 }, (_, i) => `<div><span>row ${i}</span></div>`).join('');
    const texts: string[] = [];
    const walk = new SubtreeWalk(document.body, { text: (t) => texts.push(t.data) > 0, shadowRoot: () => {} });
    let slices = 0;
    while (!walk.step(() => true)) slices++;
    expect(slices).toBeGreaterThan(3);
    expect(texts).toEqual(Array.from({ length: 300 }, (_, i) => `row ${i}`));
  });

  it('handles a single text node and a skipped element that is the last child', () => {
    const t = document.createTextNode('5.6.7.8');
    document.body.append(t);
    expect(collect(t).texts).toEqual(['5.6.7.8']);
    document.body.innerHTML = '<div><p>x</p><script>y = "1.2.3.4"</script></div><p>z</p>';
    expect(collect(document.body).texts).toEqual(['x', 'z']);
  });

  it('checks candidate texts against skipped regions without a position check each', () => {
    // A table of candidates with the page's scripts after it (the 200,000-cell page's shape).
    const rows = Array.from({ length: 500 }, (_, i) => `<tr><td>10.0.${i >> 8}.${i & 255}</td><td>10.1.${i >> 8}.${i & 255}</td></tr>`).join('');
    document.body.innerHTML = `<table>${rows}</table><div contenteditable><p>7.7.7.7</p></div><p>after 9.9.9.9</p><script>x = "1.2.3.4"</script>`;
    const compare = vi.spyOn(Node.prototype, 'compareDocumentPosition');
    const texts: string[] = [];
    const walk = new SubtreeWalk(document.body, { text: (t) => texts.push(t.data) > 0, shadowRoot: () => {} });
    let slices = 1;
    while (!walk.step(() => true)) slices++;
    // Checks against the plain rows (one per candidate text in them, in place of two parent
    // reads and a tag read) are not region checks.
    const calls = compare.mock.contexts.filter((el) => (el as Element).tagName !== 'TR').length;
    compare.mockRestore();
    expect(texts.filter((t) => t.includes('.'))).toHaveLength(1_001);
    expect(texts).toContain('after 9.9.9.9');
    expect(texts.join()).not.toMatch(/7\.7\.7\.7|1\.2\.3\.4/);
    // One position check per slice at most (a few more as regions are passed), not per text.
    expect(calls).toBeLessThanOrEqual(slices + 2);
  });

  it('finds its place again when the page moves things between slices', () => {
    document.body.innerHTML = Array.from({ length: 200 }, (_, i) => `<p>1.1.1.${i}</p>`).join('') + '<div id="ed" contenteditable><b>2.2.2.2</b></div><p>tail 3.3.3.3</p>';
    const texts: string[] = [];
    const walk = new SubtreeWalk(document.body, { text: (t) => texts.push(t.data) > 0, shadowRoot: () => {} });
    // Into the text pass (the element pass lists the regions first).
    while (texts.length === 0) expect(walk.step(() => true)).toBe(false);
    // Between slices: the editor's first text is replaced, a new editor appears ahead of the
    // walk, and a script lands right after the row the walk stands at.
    const editor = document.getElementById('ed')!;
    editor.prepend(document.createElement('i'), '4.4.4.4');
    const second = document.createElement('div');
    second.setAttribute('contenteditable', '');
    second.textContent = '5.5.5.5';
    document.body.insertBefore(second, document.body.children[150]!);
    const script = document.createElement('script');
    script.textContent = 'y = "6.6.6.6"';
    document.body.insertBefore(script, document.body.children[100]!);
    while (!walk.step(() => true));
    const read = texts.join(' ');
    expect(read).toContain('1.1.1.199');
    expect(read).toContain('tail 3.3.3.3');
    // The new editor came after the regions were listed: it is the mutation path's to skip
    // (isInsideSkipped); the script is caught by its tag; the old editor's new text is skipped.
    expect(read).not.toMatch(/2\.2\.2\.2|4\.4\.4\.4|6\.6\.6\.6/);
  });

  it('does no unsliced work over the subtree: no querySelectorAll, the first slice looks at 64 elements', () => {
    document.body.innerHTML = `<table>${Array.from({ length: 1_000 }, (_, i) => `<tr><td>10.4.${i >> 8}.${i & 255}</td></tr>`).join('')}</table><script>z = "1.2.3.4"</script>`;
    const query = vi.spyOn(Element.prototype, 'querySelectorAll');
    const texts: string[] = [];
    let elements = 0;
    const skip = { isOwnUi: () => (elements++, false) };
    const walk = new SubtreeWalk(document.body, { text: (t) => texts.push(t.data) > 0, shadowRoot: () => {} }, skip);
    // Over 200,000 cells one querySelectorAll of the skipped elements was a 57 ms call.
    expect(walk.step(() => true)).toBe(false);
    expect(elements).toBe(64);
    while (!walk.step(() => true));
    expect(query).not.toHaveBeenCalled();
    query.mockRestore();
    expect(texts).toHaveLength(1_000);
  });

  it('passes a row of plain cells whole in the element pass: no getAttribute per cell', () => {
    const rows = Array.from({ length: 20 }, (_, i) => `<tr><td>${i}</td><td>10.0.0.${i}</td><td><b>x</b> <a href="#">10.1.0.${i}</a></td></tr>`).join('');
    document.body.innerHTML = `<table><tbody>${rows}</tbody></table><ul><li>10.2.0.1 <code>y</code></li></ul>`;
    const asked: string[] = [];
    const getAttribute = vi.spyOn(Element.prototype, 'getAttribute').mockImplementation(function (this: Element, name: string) {
      asked.push(this.tagName);
      return this.attributes.getNamedItem(name)?.value ?? null;
    });
    try {
      const { texts } = collect(document.body);
      expect(texts.filter((t) => t.includes('.'))).toHaveLength(41);
      // The rows themselves are looked at (they could be skipped or editable), their cells not.
      expect(asked.filter((tag) => tag === 'TD' || tag === 'A' || tag === 'B' || tag === 'CODE')).toEqual([]);
      expect(asked.filter((tag) => tag === 'TR')).toHaveLength(20);
    } finally {
      getAttribute.mockRestore();
    }
  });

  it('hands a plain row\'s texts over with their row, reading no parent', () => {
    document.body.innerHTML = '<table><tbody><tr><td>1.1.1.1</td><td><b>2.2.2.2</b></td><td>n</td></tr><tr><td>3.3.3.3</td></tr></tbody></table><p>4.4.4.4</p>';
    const [first, second] = [...document.querySelectorAll('tr')];
    const seen: [string, Element | null, Element | undefined][] = [];
    const visitor = { text: (t: Text, data: string, parent: Element | null, row?: Element) => seen.push([data, parent, row]) > 0, shadowRoot: () => {} };
    const parentReads = vi.spyOn(Node.prototype, 'parentElement', 'get');
    new SubtreeWalk(document.body, visitor).step(() => false);
    const reads = parentReads.mock.calls.length;
    parentReads.mockRestore();
    expect(seen).toEqual([
      ['1.1.1.1', null, first],
      ['2.2.2.2', null, first],
      ['n', null, undefined],
      ['3.3.3.3', null, second],
      ['4.4.4.4', document.querySelector('p'), undefined],
    ]);
    // Only the paragraph's: a cell's parent read made a wrapper of our world per cell.
    expect(reads).toBe(1);
  });

  it('passes over the text of a plain row the visitor holds unread, and reads the rest', () => {
    document.body.innerHTML = `<table><tbody>
      <tr><td>1.1.1.1</td><td>a</td></tr>
      <tr><td>2.2.2.2</td><td><b>3.3.3.3</b></td></tr>
      <tr><td><span>4.4.4.4</span></td></tr>
      <tr><td>5.5.5.5</td></tr>
    </tbody></table><p>6.6.6.6</p>`;
    const rows = [...document.querySelectorAll('tr')];
    const offered: Element[] = [];
    const texts: string[] = [];
    const visitor = {
      text: (_t: Text, data: string) => texts.push(data) > 0,
      shadowRoot: () => {},
      // Holds the second and fourth rows.
      farRow: (row: Element) => offered.push(row) > 0 && (row === rows[1] || row === rows[3]),
    };
    expect(new SubtreeWalk(document.body, visitor).step(() => false)).toBe(true);
    // Only plain rows are offered (the third holds a span), each once.
    expect(offered).toEqual([rows[0], rows[1], rows[3]]);
    expect(texts.map((t) => t.trim()).filter(Boolean)).toEqual(['1.1.1.1', 'a', '4.4.4.4', '6.6.6.6']);
  });

  it('resumes past held rows when a walk is sliced, and reads every row it did not hold when the page moves one meanwhile', () => {
    const html = Array.from({ length: 300 }, (_, i) => `<tr><td>10.0.${i >> 8}.${i & 255}</td></tr>`).join('');
    document.body.innerHTML = `<table><tbody>${html}</tbody></table><p>after 9.9.9.9</p>`;
    const rows = [...document.querySelectorAll('tr')];
    const texts: string[] = [];
    // Every even row held unread.
    const visitor = { text: (_t: Text, data: string) => texts.push(data) > 0, shadowRoot: () => {}, farRow: (row: Element) => rows.indexOf(row as HTMLTableRowElement) % 2 === 0 };
    const walk = new SubtreeWalk(document.body, visitor);
    let steps = 0;
    let moved = false;
    while (!walk.step(() => true)) {
      steps++;
      if (!moved && texts.length > 20) {
        // A held row taken out and put back at the end, between two slices.
        document.querySelector('tbody')!.append(rows[200]!);
        moved = true;
      }
    }
    expect(steps).toBeGreaterThan(3);
    const read = texts.filter((t) => t.startsWith('10.'));
    // Every row not held is read, once. The walk meets held rows in the order it listed them:
    // past the moved one it watches for that row at the end, so the held rows between are read
    // (more work, nothing wrong: reading a held row replaces what holds it).
    expect(new Set(read).size).toBe(read.length);
    expect(read).toEqual(expect.arrayContaining(rows.filter((_, i) => i % 2 === 1).map((r) => r.textContent)));
    expect(read.length).toBeLessThan(rows.length);
    expect(texts.at(-1)).toBe('after 9.9.9.9');
  });

  it('names no row whose cells the tracker takes as list items (eight children or more)', () => {
    const cells = Array.from({ length: 8 }, (_, i) => `<td>10.0.0.${i}</td>`).join('');
    document.body.innerHTML = `<table><tbody><tr>${cells}</tr><tr><td>${'<b>x</b>'.repeat(8)} 10.1.0.1</td></tr></tbody></table>`;
    const rows: (Element | undefined)[] = [];
    new SubtreeWalk(document.body, { text: (_t, _d, _p, row) => rows.push(row) > 0, shadowRoot: () => {} }).step(() => false);
    expect(rows.filter((row) => row !== undefined)).toEqual([]);
  });

  it('still finds what a row holds beyond plain cells: editors, scripts, shadow roots', () => {
    document.body.innerHTML = `<table>
      <tr><td contenteditable>1.1.1.1</td><td>2.2.2.2</td></tr>
      <tr><td><script>x = "3.3.3.3"</script>4.4.4.4</td></tr>
      <tr><td><span>5.5.5.5</span></td><td><x-badge></x-badge></td></tr>
      <tr><td><textarea>6.6.6.6</textarea></td><td><svg><text>7.7.7.7</text></svg></td></tr>
    </table><ol><li><div>8.8.8.8</div></li><li contenteditable="false">9.9.9.9</li></ol>`;
    const span = document.querySelector('span')!.attachShadow({ mode: 'open' });
    const badge = document.querySelector('x-badge')!.attachShadow({ mode: 'open' });
    const { texts, shadows } = collect(document.body);
    expect(texts.map((t) => t.trim()).filter(Boolean)).toEqual(['2.2.2.2', '4.4.4.4', '5.5.5.5', '8.8.8.8', '9.9.9.9']);
    expect(shadows).toEqual([span, badge]);
  });

  it('skips shadow hosts inside skipped regions after the text pass', () => {
    document.body.innerHTML = '<p>1.1.1.1</p><div contenteditable><x-in></x-in></div><x-out></x-out>';
    const inside = document.querySelector('x-in')!.attachShadow({ mode: 'open' });
    const outside = document.querySelector('x-out')!.attachShadow({ mode: 'open' });
    expect(collect(document.body).shadows).toEqual([outside]);
    expect(inside).toBeTruthy();
  });
});
