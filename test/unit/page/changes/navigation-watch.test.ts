// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { watchNavigation } from '@/lib/page/changes/navigation-watch';

describe('navigation watch', () => {
  it('reports an in-app URL change once, from an event or from a DOM-change check', () => {
    const seen: string[] = [];
    const abort = new AbortController();
    const watch = watchNavigation(window, (url) => seen.push(url), abort.signal);
    watch.check();
    expect(seen).toEqual([]);
    history.pushState({}, '', '/app/discover#/view/1');
    // pushState fires no event: the next batch of DOM changes notices it.
    watch.check();
    watch.check();
    expect(seen).toEqual([`${location.origin}/app/discover#/view/1`]);
    history.pushState({}, '', '/app/alerts');
    window.dispatchEvent(new PopStateEvent('popstate'));
    expect(seen.at(-1)).toBe(`${location.origin}/app/alerts`);
    abort.abort();
    history.pushState({}, '', '/app/other');
    window.dispatchEvent(new PopStateEvent('popstate'));
    expect(seen).toHaveLength(2);
  });
});
