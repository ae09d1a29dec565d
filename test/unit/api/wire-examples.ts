/**
 * Answers as the public documentation and the spec print them (docs.ipswamp.com pages and the
 * knowledge-hub example), including their odd values. Shared by the schema/normalise tests.
 */
export const DOC_SINGLE = {
  message: 'IP found!',
  details: {
    score: 13.01131,
    ip: '8.8.8.8',
    last_attack: '2025-11-29T09:37:40.604584+0000',
    ip_rep: 'bot, crawler',
    total_hits: 2,
  },
  ipInfo: {
    ip: '8.8.8.8',
    asn: 'AS15169',
    as_name: 'Google LLC',
    as_domain: 'google.com',
    country_code: 'US',
    country: 'United States',
    continent_code: 'NA',
    continent: 'North America',
  },
};

export const WHITELISTED_SINGLE = {
  message: 'IP is whitelisted',
  description: 'Cloudflare DNS',
  details: {
    score: 0,
    ip: '1.1.1.1',
    last_attack: '',
    total_hits: 0,
    whitelist: { id: 7, reason: 'dns' },
    whitelist_description: 'Cloudflare DNS',
    whitelist_note: null,
    whitelist_value: '1.1.1.1',
  },
};

export const DOC_BULK = {
  results: [
    {
      ip: '1.2.3.4',
      data: { threat_score: 85, threat_level: 'CRITICAL', ip: '1.2.3.4', last_attack: '2026-04-15T10:30:00.000Z', ip_rep: 'known attacker', total_hits: 142, score: 85 },
      error: null,
    },
    {
      ip: '5.6.7.8',
      data: { threat_score: 10, threat_level: 'LOW', ip: '5.6.7.8', last_attack: null, ip_rep: 'clean', total_hits: 0, score: 10 },
      error: null,
    },
  ],
  total: 2,
  successful: 2,
  failed: 0,
};

export const DOC_ACCOUNT = {
  counts_toward_quota: false,
  request_cost: 0,
  organization_id: 'c0a19bd8-3e9a-49c1-863c-faa32d430720',
  api_key: {
    uid: 'ba8fbcae-8b77-4666-9ac6-ded794f57755',
    name: 'Cloud Firewall',
    current_usage: 1,
    max_api_requests: null,
    created_at: '2026-03-30T18:19:56.072Z',
  },
  organization_quota: {
    total_usage: 1,
    total_quota: 5000000,
    current_usage: 1,
    max_api_requests: 5000000,
    allocated_api_key_quota: 0,
    available_api_key_quota: 5000000,
    source: 'partner_status',
    unlimited: false,
  },
};

export const DOC_TEST_KEY = {
  success: true,
  message: 'API key validation successful! -1 Request',
  timestamp: '2025-12-10T14:30:00.000Z',
  organization_id: 'org_abc123',
  api_key_info: {
    uid: 'key_xyz789',
    name: 'Production API Key',
    current_usage: 1500,
    max_api_requests: 10000,
    created_at: '2025-01-01T00:00:00.000Z',
  },
};

export const DOC_SUBNET = {
  cidr: '1.2.3.0/24',
  network: '1.2.3.0',
  broadcast: '1.2.3.255',
  total_ips: 254,
  results: [
    { ip: '1.2.3.1', threat_score: 85, threat_level: 'CRITICAL', last_attack: '2026-04-15T10:30:00.000Z', ip_rep: 'known attacker', total_hits: 142 },
    { ip: '1.2.3.2', threat_score: 0, threat_level: 'LOW', last_attack: null, ip_rep: 'clean', total_hits: 0 },
  ],
  summary: { total: 254, malicious: 3, clean: 251, average_score: 1.2, found_count: 3 },
};
