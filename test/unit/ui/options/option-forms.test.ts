import { describe, expect, it } from 'vitest';
import { DEFAULT_LOOKUP_POLICY, DEFAULT_SETTINGS, lookupPolicySchema } from '@/lib/settings';
import { parseNumberField } from '@/lib/ui/options/number-field';
import { parsePolicyDraft, policyToDraft } from '@/lib/ui/options/policy-form';
import { createSectionForm } from '@/lib/ui/options/section-form';
import { parseThresholdsDraft, thresholdsToDraft } from '@/lib/ui/options/thresholds-form';
import { createFakeServices } from '../fake-services';

describe('number fields', () => {
  it('says what range is expected instead of zod jargon', () => {
    expect(parseNumberField('', lookupPolicySchema.shape.perPageCap)).toEqual({ ok: false, message: 'Enter a whole number from 1 to 100,000.' });
    expect(parseNumberField('0', lookupPolicySchema.shape.perPageCap)).toMatchObject({ ok: false, message: 'Enter a whole number from 1 to 100,000.' });
    expect(parseNumberField('2.5', lookupPolicySchema.shape.perPageCap)).toMatchObject({ ok: false });
    expect(parseNumberField('1e3', lookupPolicySchema.shape.perPageCap)).toMatchObject({ ok: false, message: expect.stringContaining('is not a number') });
    expect(parseNumberField(' 250 ', lookupPolicySchema.shape.perPageCap)).toEqual({ ok: true, value: 250 });
    expect(parseNumberField('12.5', lookupPolicySchema.shape.reservePercent)).toEqual({ ok: true, value: 12.5 });
    expect(parseNumberField('101', lookupPolicySchema.shape.reservePercent)).toMatchObject({ ok: false, message: 'Enter a number from 0 to 100.' });
  });
});

describe('policy and thresholds drafts', () => {
  it('round-trips the stored policy and reports each wrong field', () => {
    expect(parsePolicyDraft(policyToDraft(DEFAULT_LOOKUP_POLICY))).toEqual({ ok: true, value: DEFAULT_LOOKUP_POLICY });
    const bad = parsePolicyDraft({ ...policyToDraft(DEFAULT_LOOKUP_POLICY), perPageCap: 'lots', cacheMaxEntries: '5' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(Object.keys(bad.errors).sort()).toEqual(['cacheMaxEntries', 'perPageCap']);
  });

  it('names the pair of thresholds that is out of order', () => {
    const draft = { ...thresholdsToDraft(DEFAULT_SETTINGS.thresholds), high: '90' };
    const parsed = parseThresholdsDraft(draft);
    expect(parsed).toMatchObject({ ok: false, errors: { form: 'Critical (80) must be above High (90).', critical: expect.any(String) } });
    expect(parseThresholdsDraft({ critical: '90', high: '70', medium: '40', low: '5' })).toEqual({
      ok: true,
      value: { critical: 90, high: 70, medium: 40, low: 5 },
    });
  });
});

describe('section form', () => {
  it('saves a section only when every field is valid, and all of it at once', async () => {
    const services = createFakeServices();
    const form = createSectionForm({ key: 'thresholds', toDraft: thresholdsToDraft, parse: parseThresholdsDraft, save: services.settings.save });
    form.load(DEFAULT_SETTINGS.thresholds);
    form.set('critical', '40'); // below high (50): invalid on its own
    await form.commit();
    expect(form.status.value.state).toBe('invalid');
    expect(services.stored.thresholds).toEqual(DEFAULT_SETTINGS.thresholds);
    form.set('high', '30');
    form.set('medium', '20');
    await form.commit();
    expect(form.status.value.state).toBe('saved');
    expect(services.stored.thresholds).toEqual({ critical: 40, high: 30, medium: 20, low: 0 });
    expect(form.dirty.value).toBe(false);
  });

  it('keeps what the user is typing when storage changes underneath, unless forced', () => {
    const form = createSectionForm({ key: 'thresholds', toDraft: thresholdsToDraft, parse: parseThresholdsDraft, save: async () => DEFAULT_SETTINGS });
    form.load(DEFAULT_SETTINGS.thresholds);
    form.set('low', '7');
    form.load({ ...DEFAULT_SETTINGS.thresholds, critical: 85 });
    expect(form.draft.value).toMatchObject({ low: '7', critical: '80' });
    form.load({ ...DEFAULT_SETTINGS.thresholds, critical: 85 }, true);
    expect(form.draft.value).toMatchObject({ low: '0', critical: '85' });
    // Not editing: a new stored value (an import, another tab) replaces the fields.
    form.load({ ...DEFAULT_SETTINGS.thresholds, critical: 95 });
    expect(form.draft.value).toMatchObject({ critical: '95' });
  });
});
