import { describe, expect, it } from 'vitest';
import { CONTENT_SCRIPT_FILE, CONTENT_STYLE_FILE } from '@/lib/background/content-script-file';
import { createSiteRegistration, SITES_SCRIPT_ID } from '@/lib/background/site-registration';
import { fakePageApi, memorySites } from './page-api-fake';

const KIBANA = 'https://kibana.example.org/*';
const SPLUNK = 'https://splunk.example.org/*';

describe('site registration', () => {
  it('registers the content script for granted sites in all frames, persisted', async () => {
    const fake = fakePageApi({ granted: [KIBANA] });
    const reg = createSiteRegistration(fake.api, memorySites([KIBANA, SPLUNK]));
    expect(await reg.sync()).toEqual([KIBANA]);
    expect(fake.registered.get(SITES_SCRIPT_ID)).toEqual({
      id: SITES_SCRIPT_ID,
      js: [CONTENT_SCRIPT_FILE],
      css: [CONTENT_STYLE_FILE],
      matches: [KIBANA],
      allFrames: true,
      runAt: 'document_idle',
      persistAcrossSessions: true,
    });
  });

  it('updates the matches when the list changes and unregisters when it empties', async () => {
    const fake = fakePageApi({ granted: [KIBANA, SPLUNK] });
    const sites = memorySites([KIBANA]);
    const reg = createSiteRegistration(fake.api, sites);
    await reg.sync();
    await sites.set([KIBANA, SPLUNK]);
    await reg.sync();
    expect(fake.registered.get(SITES_SCRIPT_ID)?.matches).toEqual([KIBANA, SPLUNK]);
    expect(fake.api.scripting.registerContentScripts).toHaveBeenCalledTimes(1);
    expect(fake.api.scripting.updateContentScripts).toHaveBeenCalledTimes(1);
    await reg.sync();
    expect(fake.api.scripting.updateContentScripts).toHaveBeenCalledTimes(1);
    await sites.set([]);
    expect(await reg.sync()).toEqual([]);
    expect(fake.registered.size).toBe(0);
  });

  it('runs overlapping syncs one after the other (no duplicate registration)', async () => {
    const fake = fakePageApi({ granted: [KIBANA] });
    const reg = createSiteRegistration(fake.api, memorySites([KIBANA]));
    const results = await Promise.all([reg.sync(), reg.sync(), reg.sync()]);
    expect(results).toEqual([[KIBANA], [KIBANA], [KIBANA]]);
    expect(fake.api.scripting.registerContentScripts).toHaveBeenCalledTimes(1);
  });

  it('adds a site only with its permission and removes it on request', async () => {
    const fake = fakePageApi({ granted: [KIBANA] });
    const sites = memorySites();
    const reg = createSiteRegistration(fake.api, sites);
    await expect(reg.setSite(SPLUNK, true)).rejects.toThrow(/not granted access to https:\/\/splunk/);
    expect(sites.value).toEqual([]);
    expect(await reg.setSite(KIBANA, true)).toEqual([KIBANA]);
    expect(await reg.setSite(KIBANA, true)).toEqual([KIBANA]);
    expect(fake.registered.get(SITES_SCRIPT_ID)?.matches).toEqual([KIBANA]);
    expect(await reg.setSite(KIBANA, false)).toEqual([]);
    expect(fake.registered.size).toBe(0);
  });

  it('drops a site whose permission was revoked', async () => {
    const fake = fakePageApi({ granted: [KIBANA, SPLUNK] });
    const reg = createSiteRegistration(fake.api, memorySites([KIBANA, SPLUNK]));
    await reg.sync();
    fake.granted.delete(SPLUNK);
    expect(await reg.sync()).toEqual([KIBANA]);
    expect(fake.registered.get(SITES_SCRIPT_ID)?.matches).toEqual([KIBANA]);
  });
});
