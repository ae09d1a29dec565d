import { defineConfig } from '@playwright/test';
import chromiumSuite from './playwright.config';

/**
 * The Firefox e2e suite (test/e2e-firefox): Debian's firefox-esr driven over WebDriver BiDi
 * with puppeteer-core, Playwright Test as the runner. The Chromium suite's settings (retries in
 * CI, timeouts, reporter), with one worker: the file shares one browser.
 */
export default defineConfig({
  ...chromiumSuite,
  testDir: 'test/e2e-firefox',
  workers: 1,
  expect: { timeout: 15_000 },
  outputDir: 'test-results-firefox',
});
