import { describe, expect, it } from 'vitest';
import { PageCap } from '../../../lib/lookup/page-cap';

describe('PageCap', () => {
  it('admits at most max distinct IPs per page; asking again costs nothing', () => {
    const cap = new PageCap(3);
    expect(cap.admit('1:0:a', ['a', 'b'])).toEqual({ admitted: ['a', 'b'], capped: [] });
    expect(cap.admit('1:0:a', ['b', 'c', 'd', 'a'])).toEqual({ admitted: ['b', 'c', 'a'], capped: ['d'] });
    expect(cap.countOf('1:0:a')).toBe(3);
  });

  it('counts each page apart and follows a new max', () => {
    const cap = new PageCap(1);
    expect(cap.admit('1:0:a', ['a', 'b']).capped).toEqual(['b']);
    expect(cap.admit('2:0:b', ['b']).admitted).toEqual(['b']);
    cap.setMax(2);
    expect(cap.admit('1:0:a', ['b']).admitted).toEqual(['b']);
  });
});
