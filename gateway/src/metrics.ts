/**
 * Prometheus metrics (prom-client), one registry per gateway instance so two replicas in one
 * test process do not share counters. Labels never carry a token, a key or an IP.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetrics(options: { defaultMetrics?: boolean } = {}) {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry });
  const metrics = {
    registry,
    requests: new Counter({ name: 'gateway_requests_total', help: 'Requests by route and status.', labelNames: ['route', 'status'] as const, registers: [registry] }),
    latency: new Histogram({
      name: 'gateway_request_duration_seconds',
      help: 'Request latency by route.',
      labelNames: ['route'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    cacheHits: new Counter({ name: 'gateway_cache_hits_total', help: 'IPs answered from the shared store.', registers: [registry] }),
    cacheMisses: new Counter({ name: 'gateway_cache_misses_total', help: 'IPs bought from the upstream by this replica.', registers: [registry] }),
    coalesced: new Counter({ name: 'gateway_coalesced_total', help: 'IPs answered by another purchase in flight.', registers: [registry] }),
    upstreamCalls: new Counter({ name: 'gateway_upstream_calls_total', help: 'HTTP calls to the upstream API by endpoint.', labelNames: ['endpoint'] as const, registers: [registry] }),
    upstreamUnits: new Counter({ name: 'gateway_upstream_units_total', help: 'Quota units the upstream charged for lookups.', registers: [registry] }),
    reconciliations: new Counter({ name: 'gateway_reconciliations_total', help: 'Ledger reconciliations with /account after a vanished purchase or a lost answer.', registers: [registry] }),
    refused: new Counter({ name: 'gateway_refused_total', help: 'Requests refused before buying, by reason.', labelNames: ['reason'] as const, registers: [registry] }),
    quotaLeft: new Gauge({ name: 'gateway_team_quota_left', help: 'Units the team may still spend above its reserve (-1: unlimited).', registers: [registry] }),
  };
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;
