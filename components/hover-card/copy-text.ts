/**
 * Copies text from a content script. The async Clipboard API needs the page focused and a
 * secure context; SIEM consoles on plain http intranet hosts have neither, so fall back to a
 * textarea inside our own shadow root (never the page's DOM) and execCommand.
 */
export async function copyText(text: string, fallbackRoot: ShadowRoot): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const doc = fallbackRoot.host.ownerDocument;
    const area = doc.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.cssText = 'position:fixed;opacity:0;pointer-events:none;';
    fallbackRoot.append(area);
    area.select();
    try {
      return doc.execCommand('copy');
    } finally {
      area.remove();
    }
  }
}
