/** The store the configuration names: Redis (one URL or a cluster's nodes) or the embedded one. */
import type { GatewayConfig } from './config';
import { openEmbeddedStore } from './store/embedded-store';
import { openRedisStore } from './store/redis-store';
import type { Store } from './store/types';

export async function openStore(config: Pick<GatewayConfig, 'redisUrls' | 'dataDir'>, onError?: (error: unknown) => void): Promise<Store> {
  if (config.redisUrls.length) return openRedisStore({ urls: config.redisUrls, ...(onError ? { onError } : {}) });
  return openEmbeddedStore({ dir: config.dataDir });
}
