/**
 * The lookup engine's wake-up call that outlives the worker: `browser.alarms`. A bulk circuit
 * stays open for up to 5 minutes between probes, MV3 stops an idle worker after 30 s (its
 * timers die with it), and no page asks again until recovery is announced: without an alarm
 * nothing would ever send the probe. While the worker lives its own timer sends the probe on
 * time; the alarm is the backstop (Chrome may deliver it up to 30 s late for a packed extension).
 */
import { browser } from 'wxt/browser';

export const WAKE_ALARM = 'lookup-wake';
/**
 * The team gateway session's refresh, due before the session token ends: a stopped worker has
 * no timer left, and a lookup after the end would first be refused.
 */
export const SESSION_REFRESH_ALARM = 'gateway-session-refresh';
export type AlarmName = typeof WAKE_ALARM | typeof SESSION_REFRESH_ALARM;

/** The part of `browser.alarms` used here. */
export interface AlarmsArea {
  create(name: string, info: { when: number }): void | Promise<void>;
  clear(name: string): Promise<boolean>;
  onAlarm: { addListener(listener: (alarm: { name: string }) => void): void };
}

/** Sets (or, with null, clears) the one wake alarm. Never throws: a missing API leaves the timers alone. */
export function scheduleWakeAlarm(at: number | null, alarms: AlarmsArea | null | undefined = browser.alarms): void {
  scheduleAlarm(WAKE_ALARM, at, alarms);
}

/** Sets (or, with null, clears) one of the worker's named alarms; never throws. */
export function scheduleAlarm(name: AlarmName, at: number | null, alarms: AlarmsArea | null | undefined = browser.alarms): void {
  try {
    const done = at === null ? alarms?.clear(name) : alarms?.create(name, { when: at });
    void Promise.resolve(done).catch(() => undefined);
  } catch {
    // No alarms API (a test page, an old browser): the worker's own timer is all there is.
  }
}

/** Registered synchronously at start-up, as MV3 requires for an event to wake a stopped worker. */
export function onWakeAlarm(wake: () => void, alarms: AlarmsArea | null | undefined = browser.alarms): void {
  onAlarm(WAKE_ALARM, wake, alarms);
}

/** Calls back on one named alarm; registered synchronously at start-up like onWakeAlarm. */
export function onAlarm(name: AlarmName, callback: () => void, alarms: AlarmsArea | null | undefined = browser.alarms): void {
  alarms?.onAlarm.addListener((alarm) => {
    if (alarm.name === name) callback();
  });
}
