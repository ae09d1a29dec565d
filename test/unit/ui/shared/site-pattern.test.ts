import { describe, expect, it } from 'vitest';
import { originPatternForUrl, patternMatchesUrl, sitePatternForUrl, toSitePattern } from '@/lib/ui/shared/site-pattern';

describe('site patterns', () => {
  it('makes a pattern from a page URL, without its port', () => {
    expect(sitePatternForUrl('https://kibana.example.org:5601/app/discover#/x')).toBe('https://kibana.example.org/*');
    expect(sitePatternForUrl('http://127.0.0.1:8080/page.html')).toBe('http://127.0.0.1/*');
    expect(sitePatternForUrl('chrome://extensions')).toBeNull();
    expect(sitePatternForUrl(undefined)).toBeNull();
  });

  it('accepts a pattern, a URL or a host name, and explains anything else', () => {
    expect(toSitePattern('https://*.example.org/*')).toEqual({ ok: true, pattern: 'https://*.example.org/*', converted: false });
    expect(toSitePattern('https://siem.corp.example/app?q=1')).toEqual({ ok: true, pattern: 'https://siem.corp.example/*', converted: true });
    expect(toSitePattern('siem.corp.example')).toMatchObject({ ok: true, pattern: 'https://siem.corp.example/*' });
    expect(toSitePattern('kibana')).toMatchObject({ ok: false });
    expect(toSitePattern('')).toMatchObject({ ok: false, message: expect.stringContaining('Enter a site') });
    expect(toSitePattern('ftp://x.example/*')).toMatchObject({ ok: false });
  });

  it('matches URLs the way Chrome match patterns do', () => {
    expect(patternMatchesUrl('https://*.example.org/*', 'https://a.b.example.org/x')).toBe(true);
    expect(patternMatchesUrl('https://*.example.org/*', 'https://example.org/')).toBe(true);
    expect(patternMatchesUrl('https://*.example.org/*', 'https://badexample.org/')).toBe(false);
    expect(patternMatchesUrl('http://127.0.0.1/*', 'http://127.0.0.1:9999/page')).toBe(true);
    expect(patternMatchesUrl('http://127.0.0.1:80/*', 'http://127.0.0.1:9999/page')).toBe(false);
    expect(patternMatchesUrl('*://siem.example/*', 'http://siem.example/')).toBe(true);
    expect(patternMatchesUrl('https://siem.example/app/*', 'https://siem.example/other')).toBe(false);
    expect(patternMatchesUrl('https://siem.example/*', 'http://siem.example/')).toBe(false);
    expect(patternMatchesUrl('https://siem.example/*', undefined)).toBe(false);
  });

  it('gives the permission origin of an API base URL', () => {
    // The port is kept (access to one service, not the whole host); Firefox builds drop it.
    expect(originPatternForUrl('https://proxy.corp:8443/ipswamp/api/v1')).toBe('https://proxy.corp:8443/*');
    expect(originPatternForUrl('https://proxy.corp:8443/ipswamp/api/v1', false)).toBe('https://proxy.corp/*');
    expect(originPatternForUrl('https://proxy.corp/api')).toBe('https://proxy.corp/*');
    expect(originPatternForUrl('not a url')).toBeNull();
  });
});
