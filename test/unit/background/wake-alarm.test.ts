/**
 * The wake alarm against WXT's fake browser: one named alarm, replaced or cleared as the bulk
 * circuit's next probe moves, and only that alarm wakes the engine.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { onWakeAlarm, scheduleWakeAlarm, WAKE_ALARM } from '@/lib/background/wake-alarm';

beforeEach(() => fakeBrowser.reset());

describe('the lookup engine wake alarm', () => {
  it('sets one alarm at the asked time, replaces it, and clears it on null', async () => {
    const at = Date.now() + 90_000;
    scheduleWakeAlarm(at);
    scheduleWakeAlarm(at + 60_000);
    await new Promise((resolve) => setTimeout(resolve, 0));
    const alarms = await fakeBrowser.alarms.getAll();
    expect(alarms.map((a) => [a.name, a.scheduledTime])).toEqual([[WAKE_ALARM, at + 60_000]]);
    scheduleWakeAlarm(null);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(await fakeBrowser.alarms.getAll()).toEqual([]);
  });

  it('wakes the engine on its own alarm only', async () => {
    const woken: string[] = [];
    onWakeAlarm(() => woken.push('wake'));
    await fakeBrowser.alarms.onAlarm.trigger({ name: 'someone-else', scheduledTime: Date.now(), persistAcrossSessions: false });
    expect(woken).toEqual([]);
    await fakeBrowser.alarms.onAlarm.trigger({ name: WAKE_ALARM, scheduledTime: Date.now(), persistAcrossSessions: false });
    expect(woken).toEqual(['wake']);
  });

  it('never throws without an alarms API', () => {
    expect(() => scheduleWakeAlarm(Date.now(), null)).not.toThrow();
    expect(() => onWakeAlarm(() => undefined, null)).not.toThrow();
  });
});
