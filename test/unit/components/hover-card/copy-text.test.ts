// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { copyText } from '@/components/hover-card/copy-text';

describe('copy text', () => {
  afterEach(() => vi.restoreAllMocks());

  it('uses the Clipboard API when it works', async () => {
    const write = vi.fn(async () => {});
    vi.spyOn(navigator, 'clipboard', 'get').mockReturnValue({ writeText: write } as unknown as Clipboard);
    const host = document.createElement('div');
    const shadow = host.attachShadow({ mode: 'closed' });
    expect(await copyText('185.220.101.1', shadow)).toBe(true);
    expect(write).toHaveBeenCalledWith('185.220.101.1');
  });

  it('falls back to a textarea inside our shadow root, never the page', async () => {
    vi.spyOn(navigator, 'clipboard', 'get').mockReturnValue({ writeText: async () => Promise.reject(new Error('denied')) } as unknown as Clipboard);
    const host = document.createElement('div');
    document.body.append(host);
    const shadow = host.attachShadow({ mode: 'closed' });
    let copied = '';
    (document as unknown as { execCommand: (c: string) => boolean }).execCommand = () => {
      copied = (shadow.querySelector('textarea') as HTMLTextAreaElement).value;
      return true;
    };
    const before = document.body.innerHTML;
    expect(await copyText('8.8.8.8', shadow)).toBe(true);
    expect(copied).toBe('8.8.8.8');
    expect(shadow.querySelector('textarea')).toBeNull();
    expect(document.body.innerHTML).toBe(before);
  });
});
