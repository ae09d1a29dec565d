/**
 * The three descriptions of the policy stay one: Chrome's managed_schema.json (what Chrome lets
 * through), the reader in lib/settings/managed.ts (what the extension accepts), README's table
 * of policy names and the samples in docs/managed-policy.md (what administrators copy).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import config from '../../../wxt.config';
import { lookupPolicySchema, parseManagedPolicy } from '@/lib/settings';

type ManifestFn = (env: { mode: string; browser: string; manifestVersion: number; command: string }) => Record<string, unknown>;
const manifestFor = (browser: string) => (config.manifest as ManifestFn)({ mode: 'production', browser, manifestVersion: 3, command: 'build' });

interface SchemaNode {
  type: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
}
const schema = JSON.parse(readFileSync('public/managed_schema.json', 'utf8')) as SchemaNode;

describe('managed schema', () => {
  it('the Chrome release manifest points at it; Firefox, which reads policies.json, does not', () => {
    expect(manifestFor('chrome').storage).toEqual({ managed_schema: 'managed_schema.json' });
    expect(manifestFor('firefox')).not.toHaveProperty('storage');
  });

  it('names exactly what the reader accepts, lookup policy fields included', () => {
    const names = Object.keys(schema.properties!);
    const sample = Object.fromEntries(names.map((n) => [n, undefined]));
    // No schema name is unknown to the reader...
    expect(parseManagedPolicy({ ...sample, colour: 1 }).problems.join(' ')).toMatch(/Unknown policy names: colour\./);
    for (const name of names) expect(parseManagedPolicy({ [name]: null }).problems.join(' ')).not.toMatch(/Unknown policy names/);
    // ...and the lookup policy lists every field the settings have.
    expect(Object.keys(schema.properties!.lookupPolicy!.properties!).sort()).toEqual(Object.keys(lookupPolicySchema.shape).sort());
  });

  it("README's table names every policy and lookup policy field, and no other", () => {
    const readme = readFileSync('README.md', 'utf8');
    const start = readme.indexOf('## For administrators');
    const admin = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const rows = [...admin.matchAll(/^\| `(\w+)` \|(.*)$/gm)];
    expect(rows.map((r) => r[1]).sort()).toEqual(Object.keys(schema.properties!).sort());
    const lookupRow = rows.find((r) => r[1] === 'lookupPolicy')![2]!;
    const fields = [...lookupRow.matchAll(/`(\w+)`/g)].map((m) => m[1]);
    expect(fields.sort()).toEqual(Object.keys(lookupPolicySchema.shape).sort());
  });

  it('the sample policies in docs/managed-policy.md are valid, with nothing ignored', () => {
    const doc = readFileSync('docs/managed-policy.md', 'utf8');
    const samples = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);
    expect(samples).toHaveLength(2);
    const chrome = (samples[0]!['3rdparty'] as { extensions: Record<string, unknown> }).extensions['<extension id>'];
    const firefox = ((samples[1]!.policies as Record<string, unknown>)['3rdparty'] as { Extensions: Record<string, unknown> }).Extensions[
      'ip-reputation-lens@iplens.dev'
    ];
    for (const policy of [chrome, firefox]) {
      const parsed = parseManagedPolicy(policy);
      expect(parsed.problems).toEqual([]);
      expect(parsed.locked.size).toBeGreaterThan(3);
    }
    expect(parseManagedPolicy(chrome).proxyAddsKey).toBe(true);
  });
});
