import { defineConfig } from '@playwright/test';

/**
 * The Firefox e2e suite (test/e2e-firefox): Debian's firefox-esr driven over WebDriver BiDi
 * with puppeteer-core, Playwright Test as the runner. One worker: the file shares one browser.
 */
export default defineConfig({
  testDir: 'test/e2e-firefox',
  testMatch: '**/*.spec.ts',
  workers: 1,
  fullyParallel: false,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  outputDir: 'test-results-firefox',
});
