/**
 * The API client: every endpoint the extension uses, with its answers validated and
 * normalised and its failures mapped to one ApiError kind. Runs in the background service
 * worker, the only context that holds the key.
 *
 *   const api = createApiClient({ baseUrl, apiKey, authHeader: 'authorization' });
 *   const answer = await api.checkIp('185.220.101.1', { detailed: true });
 */
import { lookupBulk } from './bulk';
import { provenanceOf } from './gateway-provenance';
import { ApiError } from './errors';
import { createTransport } from './http';
import { normalizeAccount, normalizeSingle, normalizeSubnet, normalizeTestKey } from './normalize';
import { parseAnswer } from './parse';
import { confirmRefusal } from './refused-403';
import { resolveRetryPolicy } from './retry';
import { accountSchema, singleLookupSchema, subnetLookupSchema, testKeySchema } from './schemas';
import type { ApiClient, ApiClientOptions } from './types';
import { isSubnetTooLarge, isValidIp, parseCidr } from '../ip/validate-ip';

export function createApiClient(options: ApiClientOptions): ApiClient {
  const transport = createTransport(options, resolveRetryPolicy(options.retry));
  const withSignal = (signal?: AbortSignal) => (signal ? { signal } : {});
  const account = async (signal?: AbortSignal) => {
    const answer = await transport.send({ method: 'GET', path: '/account', ...withSignal(signal) });
    return normalizeAccount(parseAnswer(accountSchema, answer.json, 'account', answer.status));
  };
  /** A paid call, with an unknown 403 text confirmed by the free /account (refused-403.ts). */
  const paid = async <T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof ApiError && error.kind === 'refused') throw await confirmRefusal(error, () => account(signal));
      throw error;
    }
  };

  return {
    checkIp(ip, options = {}) {
      return paid(() => checkIp(ip, options), options.signal);
    },

    checkIpBulk(ips, { signal, asked } = {}) {
      if (ips.length === 0) return Promise.resolve({ items: [], requests: 0 });
      // Which IPs the analyst asked for is the team's business only: the API never hears it.
      const told = options.teamGateway ? (asked ?? new Set<string>()) : null;
      return paid(() => lookupBulk(transport, ips, signal, told), signal);
    },

    testKey({ signal } = {}) {
      return paid(async () => {
        const answer = await transport.send({ method: 'GET', path: '/test-key', paid: true, ...withSignal(signal) });
        return normalizeTestKey(parseAnswer(testKeySchema, answer.json, 'test-key', answer.status));
      }, signal);
    },

    async account({ signal } = {}) {
      try {
        return await account(signal);
      } catch (error) {
        // /account is open even at the usage limit: a 403 here is about the key.
        if (error instanceof ApiError && error.kind === 'refused') {
          throw new ApiError({ kind: 'invalid-key', status: 403, message: `The API key was refused (the server said "${error.message}").` });
        }
        throw error;
      }
    },

    checkSubnet(cidr, { signal } = {}) {
      return paid(() => checkSubnet(cidr, signal), signal);
    },
  };

  async function checkIp(ip: string, { detailed = false, signal, asked = false }: { detailed?: boolean; signal?: AbortSignal; asked?: boolean }) {
    const trimmed = ip.trim();
    if (!isValidIp(trimmed)) {
      throw new ApiError({ kind: 'bad-request', message: `"${ip}" is not a valid IP address.` });
    }
    const answer = await transport.send({
      method: 'GET',
      path: '/checkIP',
      query: { ip: trimmed, ...(detailed ? { detailed: 'true' } : {}), ...(asked && options.teamGateway ? { asked: 'true' } : {}) },
      notFoundIsAnswer: true,
      paid: true,
      ...withSignal(signal),
    });
    // A 404 for an unknown IP is free; a 200 clean row (total_hits 0) is a found answer.
    if (answer.status === 404) {
      const gateway = provenanceOf((answer.json as { gateway?: unknown } | null)?.gateway);
      return gateway ? ({ status: 'not-found', ip, gateway } as const) : ({ status: 'not-found', ip } as const);
    }
    const body = parseAnswer(singleLookupSchema, answer.json, 'checkIP', answer.status);
    const gateway = provenanceOf(body.gateway);
    return gateway ? ({ status: 'found', data: normalizeSingle(body, ip), gateway } as const) : ({ status: 'found', data: normalizeSingle(body, ip) } as const);
  }

  async function checkSubnet(cidr: string, signal?: AbortSignal) {
    const parsed = parseCidr(cidr);
    if (!parsed) throw new ApiError({ kind: 'bad-request', message: `"${cidr}" is not a CIDR block such as 1.2.3.0/24.` });
    if (isSubnetTooLarge(parsed)) {
      const limit = parsed.version === 4 ? '/24' : '/120';
      throw new ApiError({ kind: 'bad-request', message: `"${cidr}" is larger than ${limit} (256 addresses), the largest block the API scans.` });
    }
    const trimmed = cidr.trim();
    const answer = await transport.send({ method: 'GET', path: '/checkSubnet', query: { cidr: trimmed }, paid: true, ...withSignal(signal) });
    return normalizeSubnet(parseAnswer(subnetLookupSchema, answer.json, 'checkSubnet', answer.status), trimmed);
  }
}

export { ApiError, API_ERROR_KINDS, isApiError } from './errors';
export type { ApiErrorData, ApiErrorKind } from './errors';
export { DEFAULT_RETRY_POLICY } from './retry';
export { DEFAULT_TIMEOUT_MS } from './http';
export { BULK_CHUNK_SIZE } from './bulk';
export type * from './types';
