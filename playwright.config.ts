import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  // One Chromium with the extension per worker; the machines have two cores.
  workers: 2,
  fullyParallel: false,
  // CI runs on a shared two-core machine: one retry there, so a timing accident does not block
  // a landing. The list reporter still names any test that needed it as "flaky": fix those.
  // Locally, no retry, so flakiness shows at once.
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  outputDir: 'test-results',
});
