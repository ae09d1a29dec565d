/**
 * Playwright Test fixtures for the Firefox suite: one Firefox with the extension per worker,
 * and after every test a check that the extension wrote no error to the browser console
 * (script errors, CSP violations and console.error from its pages, background and content
 * scripts: see FirefoxSession.extensionConsole).
 */
import { test as base } from '@playwright/test';
import { FirefoxSession } from './firefox';

/**
 * Firefox's own report that a tab closed while its content script still awaited a reply (the
 * page summary is sent without waiting): the promise is rejected after the page is gone, so no
 * code of ours is left to handle it. Only this exact message is tolerated.
 */
const TAB_CLOSED_MID_MESSAGE = /^XPConnect JavaScript: Promise rejected after context unloaded: Actor 'Conduits' destroyed before query 'RuntimeMessage' was resolved\s*$/;
/**
 * The same report when an extension page closes while one of its promises is pending: the
 * answer arrives after the page is gone (seen once in a clean CI run, from the settings chunk,
 * during the key-store scenario). Only this exact message is tolerated.
 */
const PAGE_CLOSED_MID_READ = /^XPConnect JavaScript: Promise resolved after context unloaded\s*$/;

export const test = base.extend<{ consoleClean: void }, { firefox: FirefoxSession }>({
  firefox: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const session = await FirefoxSession.launch();
      await use(session);
      await session.close();
    },
    { scope: 'worker', timeout: 120_000 },
  ],
  consoleClean: [
    async ({ firefox }, use, testInfo) => {
      // Anything from before this test (the background's start, at first) is counted too.
      await use();
      const entries = await firefox.takeConsole();
      const errors = entries.filter((e) => e.level === 'error' && !TAB_CLOSED_MID_MESSAGE.test(e.message) && !PAGE_CLOSED_MID_READ.test(e.message));
      for (const e of entries) await testInfo.attach(`console ${e.level}`, { body: `${e.source}\n${e.message}` });
      test.expect(errors, 'errors in the browser console from the extension').toEqual([]);
    },
    { auto: true },
  ],
});

export const expect = test.expect;
