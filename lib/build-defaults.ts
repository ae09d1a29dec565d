/**
 * Defaults that depend on the build. The release build targets the public service; the demo
 * build (`npm run demo`) is preconfigured for the local API simulator it starts, so a new user
 * sees the product work without an account.
 */
export const PUBLIC_API_BASE_URL = 'https://ipswamp.com/api/v1';

// import.meta.env is undefined outside Vite (benchmarks and scripts run under tsx).
const env = (import.meta.env ?? {}) as Record<string, string | undefined>;

const demo = env.MODE === 'demo';

export const BUILD_DEFAULTS = {
  apiBaseUrl: (demo && env.WXT_DEMO_BASE_URL) || PUBLIC_API_BASE_URL,
  apiKey: (demo && env.WXT_DEMO_API_KEY) || '',
  /** The demo scans the simulator's own demo pages out of the box. */
  sitesToScan: demo && env.WXT_DEMO_SITE ? [env.WXT_DEMO_SITE] : [],
};
