// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { SubtreeWalk } from '@/lib/page/subtree-walk';

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
});
