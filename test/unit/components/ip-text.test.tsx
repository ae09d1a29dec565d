// @vitest-environment happy-dom
import { render } from 'preact';
import { describe, expect, it } from 'vitest';
import { IpText } from '@/components/ip-text';

function show(ip: string): HTMLElement {
  const host = document.createElement('p');
  render(<IpText ip={ip} />, host);
  return host;
}

describe('IpText', () => {
  it('gives IPv4 no break opportunity', () => {
    const host = show('193.110.107.247');
    expect(host.textContent).toBe('193.110.107.247');
    expect(host.querySelectorAll('wbr')).toHaveLength(0);
  });

  it('lets IPv6 wrap only after a colon, and copies as the address', () => {
    const host = show('2001:db8:85a3::8a2e:370:7334');
    expect(host.textContent).toBe('2001:db8:85a3::8a2e:370:7334');
    const wbrs = [...host.querySelectorAll('wbr')];
    expect(wbrs).toHaveLength(6); // one per colon
    for (const wbr of wbrs) expect(wbr.previousSibling?.textContent?.endsWith(':')).toBe(true);
  });

  it('keeps the mapped IPv4 tail whole', () => {
    const host = show('::ffff:192.0.2.128');
    expect(host.textContent).toBe('::ffff:192.0.2.128');
    expect(host.lastChild?.textContent).toBe('192.0.2.128');
  });
});
