import { describe, expect, it, vi } from 'vitest';
import { badgeText, createBadge, distinctRisky } from '@/lib/background/badge';
import { fakePageApi } from './page-api-fake';

describe('badge', () => {
  it('counts the distinct high and critical IPs of a tab over its frames', async () => {
    const fake = fakePageApi();
    const badge = createBadge(fake.api);
    await badge.report(7, 0, 'doc-a', ['185.220.101.1', '45.33.32.156', '2a0b:4140:ddd::1']);
    expect(fake.badges.get(7)).toBe('3');
    // The same IP in a second frame counts once; a new one adds one.
    await badge.report(7, 3, 'frame-doc', ['185.220.101.1', '23.0.0.80']);
    expect(fake.badges.get(7)).toBe('4');
    expect(await badge.total(7)).toBe(4);
    // A frame's report replaces its previous one.
    await badge.report(7, 3, 'frame-doc', []);
    expect(fake.badges.get(7)).toBe('3');
    await badge.report(8, 0, 'other', []);
    expect(fake.badges.get(8)).toBe('');
  });

  it('sets its colour once, for every tab, not with each report', async () => {
    const fake = fakePageApi();
    const badge = createBadge(fake.api);
    await badge.report(7, 0, 'doc-a', []);
    expect(fake.api.action.setBadgeBackgroundColor).not.toHaveBeenCalled();
    await badge.report(7, 0, 'doc-a', ['185.220.101.1']);
    await badge.report(8, 0, 'doc-b', ['45.33.32.156']);
    await badge.report(7, 0, 'doc-c', ['23.0.0.80']);
    expect(fake.api.action.setBadgeBackgroundColor).toHaveBeenCalledOnce();
    expect(fake.api.action.setBadgeBackgroundColor).toHaveBeenCalledWith({ color: '#b71c1c' });
  });

  it('starts afresh on a new top document and when the tab navigates', async () => {
    const fake = fakePageApi();
    const badge = createBadge(fake.api);
    await badge.report(7, 0, 'doc-a', ['1.1.1.1', '2.2.2.2']);
    await badge.report(7, 2, 'frame', ['3.3.3.3']);
    await badge.report(7, 0, 'doc-b', ['4.4.4.4']);
    expect(fake.badges.get(7)).toBe('1');
    await badge.clearTab(7);
    expect(fake.badges.get(7)).toBe('');
  });

  it('forgets a closed tab without a toolbar call on it', async () => {
    const fake = fakePageApi();
    const badge = createBadge(fake.api);
    await badge.report(7, 0, 'doc-a', ['1.1.1.1']);
    await badge.report(8, 0, 'doc-b', ['2.2.2.2']);
    vi.mocked(fake.api.action.setBadgeText).mockClear();
    await badge.forgetTab(7);
    // The browser drops a closed tab's badge itself: setting it would fail on a tab that is gone.
    expect(fake.api.action.setBadgeText).not.toHaveBeenCalled();
    expect(await badge.total(7)).toBe(0);
    expect(await createBadge(fake.api).total(7)).toBe(0);
    expect(await createBadge(fake.api).total(8)).toBe(1);
  });

  it('survives a service-worker restart through storage.session', async () => {
    const fake = fakePageApi();
    await createBadge(fake.api).report(7, 0, 'doc', ['1.1.1.1', '2.2.2.2']);
    const restarted = createBadge(fake.api);
    await restarted.report(7, 4, 'frame', ['2.2.2.2', '3.3.3.3']);
    expect(fake.badges.get(7)).toBe('3');
  });

  it.each([
    ['counts from an older version', { 7: { 0: { doc: 'doc', risky: 2 } } }],
    ['garbage', 'garbage'],
    ['a frame without its document', { 7: { 0: { risky: ['9.9.9.9'] } } }],
  ])('starts empty when storage.session holds %s', async (_name, stored) => {
    const fake = fakePageApi();
    fake.session.set('pageBadge', stored);
    const badge = createBadge(fake.api);
    await badge.report(7, 3, 'frame', ['1.1.1.1']);
    expect(fake.badges.get(7)).toBe('1');
  });

  it('works from memory where storage.session is missing', async () => {
    const fake = fakePageApi();
    const badge = createBadge({ action: fake.api.action });
    await badge.report(7, 0, 'doc', ['1.1.1.1']);
    await badge.report(7, 1, 'frame', ['1.1.1.1', '2.2.2.2']);
    expect(fake.badges.get(7)).toBe('2');
  });

  it('counts nothing for a tab it has not heard of', () => {
    expect(distinctRisky(undefined)).toBe(0);
  });

  it('keeps the text short', () => {
    expect(badgeText(0)).toBe('');
    expect(badgeText(42)).toBe('42');
    expect(badgeText(999)).toBe('999');
    expect(badgeText(1000)).toBe('999+');
    expect(badgeText(1234)).toBe('999+');
  });
});
