import { defineConfig } from 'vitest/config';
import { WxtVitest } from 'wxt/testing/vitest-plugin';

export default defineConfig({
  plugins: [WxtVitest()],
  test: {
    include: ['test/unit/**/*.test.{ts,tsx}'],
    setupFiles: ['test/unit/fast-check-setup.ts', 'test/unit/indexeddb-setup.ts'],
    environment: 'node',
    // Contract tests start the simulator on loopback; give them room on a shared machine.
    testTimeout: 20_000,
    restoreMocks: true,
  },
});
