/**
 * An ApiClient that answers from memory and counts what it was asked: the unit tests of the
 * engine assert on calls, not on timing. An IP is "found" when its last octet is even.
 * Calls can be held (to act mid-flight) and failures queued.
 */
import { ApiError, type ApiErrorData } from '../../../../lib/api/errors';
import type {
  AccountInfo,
  ApiClient,
  BulkLookup,
  Reputation,
  SingleLookup,
  SubnetLookup,
  TestKeyResult,
} from '../../../../lib/api/types';

export function reputationOf(ip: string, detailed = false): Reputation {
  const score = Number(ip.split('.').pop() ?? 0) % 101;
  return {
    ip,
    score,
    threatLevel: score >= 80 ? 'CRITICAL' : score >= 50 ? 'HIGH' : 'LOW',
    reputation: 'malicious',
    totalHits: score * 3,
    lastAttack: '2025-01-01T00:00:00.000Z',
    whitelisted: false,
    whitelist: null,
    description: null,
    ...(detailed ? { ipInfo: { ip, asn: 'AS64500', country_code: 'NL' } } : {}),
  };
}

export const isFound = (ip: string) => Number(ip.split('.').pop() ?? 1) % 2 === 0;

export class FakeApiClient implements ApiClient {
  bulkCalls: string[][] = [];
  checkCalls: { ip: string; detailed: boolean }[] = [];
  accountCalls = 0;
  testKeyCalls = 0;
  /** Errors thrown by the next bulk calls, in order. */
  bulkFailures: ApiErrorData[] = [];
  checkFailures: ApiErrorData[] = [];
  account_: { used: number; limit: number | null; unlimited?: boolean } = { used: 0, limit: 1000 };
  accountFailure: ApiErrorData | null = null;
  private held: Array<() => void> | null = null;

  /** From now on calls wait until release(). */
  hold(): void {
    this.held ??= [];
  }

  release(): void {
    const waiting = this.held ?? [];
    this.held = null;
    waiting.forEach((go) => go());
  }

  get heldCalls(): number {
    return this.held?.length ?? 0;
  }

  private async gate(): Promise<void> {
    if (this.held) await new Promise<void>((resolve) => this.held!.push(resolve));
  }

  async checkIpBulk(ips: readonly string[]): Promise<BulkLookup> {
    this.bulkCalls.push([...ips]);
    await this.gate();
    const failure = this.bulkFailures.shift();
    if (failure) throw new ApiError(failure);
    return {
      requests: 1,
      items: ips.map((ip) => (isFound(ip) ? { ip, status: 'found', data: reputationOf(ip) } : { ip, status: 'not-found' })),
    };
  }

  async checkIp(ip: string, options: { detailed?: boolean } = {}): Promise<SingleLookup> {
    const detailed = options.detailed ?? false;
    this.checkCalls.push({ ip, detailed });
    await this.gate();
    const failure = this.checkFailures.shift();
    if (failure) throw new ApiError(failure);
    return isFound(ip) ? { status: 'found', data: reputationOf(ip, detailed) } : { status: 'not-found', ip };
  }

  async account(): Promise<AccountInfo> {
    this.accountCalls++;
    if (this.accountFailure) throw new ApiError(this.accountFailure);
    const { used, limit, unlimited = false } = this.account_;
    return {
      organizationId: 'org',
      key: { uid: 'k', name: 'k', currentUsage: used, maxApiRequests: unlimited ? null : limit, createdAt: null },
      organization: unlimited
        ? {
            totalUsage: used,
            totalQuota: null,
            currentUsage: used,
            maxApiRequests: null,
            allocatedApiKeyQuota: 0,
            availableApiKeyQuota: null,
            source: 'unlimited',
            unlimited: true,
          }
        : null,
    };
  }

  async testKey(): Promise<TestKeyResult> {
    this.testKeyCalls++;
    return {
      success: true,
      message: 'API key validation successful! -1 Request',
      timestamp: null,
      organizationId: 'org',
      key: { uid: 'k', name: 'k', currentUsage: this.account_.used, maxApiRequests: this.account_.limit, createdAt: null },
    };
  }

  async checkSubnet(cidr: string): Promise<SubnetLookup> {
    return { cidr, items: [], summary: null };
  }

  /** IPs that were in more than one bulk call. */
  sentTwice(): string[] {
    const seen = new Set<string>();
    const twice = new Set<string>();
    for (const call of this.bulkCalls) for (const ip of call) (seen.has(ip) ? twice : seen).add(ip);
    return [...twice];
  }
}
