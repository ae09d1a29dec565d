/** The key facts from /account or test-key, as label/value lines for the options page. */
import type { AccountInfo, ApiKeyInfo, OrganizationQuota, TestKeyResult } from '../../api/types';
import { formatAbsolute, formatCount } from '../../format';

export interface InfoLine {
  label: string;
  value: string;
}

function keyUsage(key: ApiKeyInfo): string {
  if (key.currentUsage === null && key.maxApiRequests === null) return 'not reported';
  if (key.maxApiRequests === null) return `${formatCount(key.currentUsage)} requests (no limit of its own)`;
  const left = key.currentUsage !== null ? key.maxApiRequests - key.currentUsage : null;
  const leftText = left !== null ? `, ${formatCount(Math.max(0, left))} left` : '';
  return `${formatCount(key.currentUsage)} of ${formatCount(key.maxApiRequests)} requests${leftText}`;
}

function orgQuota(org: OrganizationQuota): string {
  if (org.unlimited) return 'unlimited';
  const used = org.currentUsage ?? org.totalUsage;
  const limit = org.maxApiRequests ?? org.totalQuota;
  if (used === null && limit === null) return 'not reported';
  return `${formatCount(used)} of ${formatCount(limit)} requests`;
}

function keyLines(key: ApiKeyInfo, organizationId: string | null): InfoLine[] {
  const lines: InfoLine[] = [
    { label: 'Key name', value: key.name || '(unnamed)' },
    { label: 'Organisation', value: organizationId || 'not reported' },
    { label: 'Usage this period', value: keyUsage(key) },
  ];
  const created = formatAbsolute(key.createdAt);
  if (created) lines.push({ label: 'Key created', value: created });
  return lines;
}

export function accountLines(account: AccountInfo): InfoLine[] {
  const lines = keyLines(account.key, account.organizationId);
  if (account.organization) lines.push({ label: 'Organisation quota', value: orgQuota(account.organization) });
  return lines;
}

export function testKeyLines(result: TestKeyResult): InfoLine[] {
  const lines = keyLines(result.key, result.organizationId);
  if (result.message) lines.push({ label: 'Server said', value: result.message });
  return lines;
}
