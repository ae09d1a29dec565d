/**
 * Defaults that depend on the build. The release build targets the public service; the demo
 * build (`npm run demo`) is preconfigured for the local API simulator it starts, so a new user
 * sees the product work without an account.
 */
export const PUBLIC_API_BASE_URL = 'https://ipswamp.com/api/v1';

const env = import.meta.env as Record<string, string | undefined>;

export const BUILD_DEFAULTS = {
  apiBaseUrl: (env.MODE === 'demo' && env.WXT_DEMO_BASE_URL) || PUBLIC_API_BASE_URL,
  apiKey: (env.MODE === 'demo' && env.WXT_DEMO_API_KEY) || '',
};
