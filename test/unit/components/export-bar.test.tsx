// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import { ExportBar } from '@/components/export-bar';
import { DEFAULT_THRESHOLDS } from '@/lib/severity';
import { button, click, flush, mount } from '../ui/dom';
import { createFakeServices } from '../ui/fake-services';
import { found } from '../ui/samples';
import { stixViolations } from '../export/stix-rules';

const ROWS = [
  { ip: '185.220.101.4', count: 2, result: found('185.220.101.4', { score: 92 }) },
  { ip: '198.51.100.9', count: 1, result: found('198.51.100.9', { score: 30 }) },
  { ip: '10.0.0.1', count: 1, result: { ip: '10.0.0.1', status: 'skipped' as const, reason: 'private' as const } },
];
const PAGE = { url: 'https://siem.example/case?id=42', title: 'Alerts \u202Eevil' };

/** The case builders load on demand (a dynamic import): wait for the result. */
async function until(check: () => void): Promise<void> {
  await vi.waitFor(async () => {
    await flush();
    check();
  });
}

function checkbox(root: ParentNode, text: string): HTMLInputElement {
  const label = [...root.querySelectorAll('label')].find((l) => l.textContent?.includes(text));
  if (!label) throw new Error(`no label with "${text}"`);
  return label.querySelector('input')!;
}

describe('export bar: case exports', () => {
  it('copies a valid STIX bundle without the page address unless it is ticked', async () => {
    const s = createFakeServices();
    const root = await mount(<ExportBar rows={ROWS} thresholds={DEFAULT_THRESHOLDS} source={PAGE.url} fileLabel="siem" page={PAGE} />, s);
    await click(button(root, 'STIX 2.1…'));
    expect(checkbox(root, 'Include the page address').checked).toBe(false);
    await click(button(root, 'Copy STIX 2.1'));
    await until(() => expect(s.clipboard).toHaveLength(1));
    const bundle = JSON.parse(s.clipboard[0]!);
    expect(stixViolations(bundle)).toEqual([]);
    expect(s.clipboard[0]).not.toContain('siem.example');
    expect(root.textContent).toContain('Copied 2 IPs as STIX 2.1, 1 indicator; 1 left out');

    await click(button(root, 'STIX 2.1…'));
    await click(checkbox(root, 'Include the page address'));
    await click(button(root, 'Copy STIX 2.1'));
    await until(() => expect(s.clipboard).toHaveLength(2));
    expect(s.clipboard[1]).toContain('https://siem.example/case?id=42');
    expect(s.clipboard[1]).toContain('Alerts [U+202E]evil');
  });

  it('downloads a MISP event with the attribute type chosen, medium as to_ids when the option says so', async () => {
    const s = createFakeServices();
    const root = await mount(<ExportBar rows={ROWS} thresholds={DEFAULT_THRESHOLDS} source="lookup" fileLabel="lookup" mediumIndicators />, s);
    await click(button(root, 'MISP…'));
    const src = root.querySelector<HTMLInputElement>('input[value="ip-src"]')!;
    await click(src);
    await click(button(root, 'Download MISP event'));
    await until(() => expect(s.files).toHaveLength(1));
    const file = s.files[0]!;
    expect(file.name).toMatch(/^ip-reputation-lookup-\d{8}-\d{6}\.misp\.json$/);
    const event = JSON.parse(file.text).Event;
    expect(event.Attribute.map((a: { type: string; value: string; to_ids: boolean }) => [a.type, a.value, a.to_ids])).toEqual([
      ['ip-src', '185.220.101.4', true],
      ['ip-src', '198.51.100.9', true],
    ]);
  });
});
