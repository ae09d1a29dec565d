/**
 * Whether the document already has the underline mark rules, from the stylesheet injected with
 * the registered content script at document start (entrypoints/content/marks.css). Then the
 * content script adopts no sheet into the document for the default style, which would restyle
 * every element of the page once (a ~1 s frame on the 10,000-row benchmark page). One-off
 * scans have no such sheet and adopt one.
 */
import { highlightName } from '../../severity';

export function hasStaticMarkStyles(doc: Document): boolean {
  const view = doc.defaultView;
  if (!view || !doc.documentElement) return false;
  try {
    const style = view.getComputedStyle(doc.documentElement, `::highlight(${highlightName('critical')})`);
    return style.textDecorationLine.includes('underline');
  } catch {
    return false;
  }
}
