import { describe, expect, it } from 'vitest';
import { parseLookupInput } from '@/lib/ui/popup/parse-lookup-input';

const off = { sendPrivate: false };

describe('parseLookupInput', () => {
  it('treats one address, with its usual wrapping, as a single detailed lookup', () => {
    expect(parseLookupInput(' 185.220.101.4 ', off)).toEqual({ kind: 'single', ip: '185.220.101.4', ipClass: 'public', send: true });
    expect(parseLookupInput('[2606:4700:4700::1111]:443', off)).toMatchObject({ kind: 'single', ip: '2606:4700:4700::1111' });
    expect(parseLookupInput('185.220.101[.]4', off)).toMatchObject({ kind: 'single', ip: '185.220.101.4' });
  });

  it('does not send a private single IP unless the policy allows it', () => {
    expect(parseLookupInput('10.1.2.3', off)).toEqual({ kind: 'single', ip: '10.1.2.3', ipClass: 'private', send: false });
    expect(parseLookupInput('10.1.2.3', { sendPrivate: true })).toMatchObject({ send: true });
  });

  it('extracts every IP from pasted text, counts repeats and lists the skipped ones', () => {
    const log = [
      'Jan 14 09:37:40 sshd[1]: Failed password for root from 185.220.101.4 port 2222',
      'Jan 14 09:37:41 sshd[1]: Failed password for root from 185.220.101.4 port 2223',
      'Jan 14 09:37:42 fw: DROP SRC=10.0.0.5 DST=192.168.1.10 PROTO=TCP',
      'Jan 14 09:37:43 proxy: GET from 2a01:4f8::1 via 45.155.205.233',
    ].join('\n');
    const parsed = parseLookupInput(log, off);
    expect(parsed.kind).toBe('text');
    if (parsed.kind !== 'text') return;
    expect(parsed.occurrences).toBe(6);
    expect(parsed.ips.map((i) => i.ip)).toEqual(['185.220.101.4', '10.0.0.5', '192.168.1.10', '2a01:4f8::1', '45.155.205.233']);
    expect(parsed.ips[0]!.count).toBe(2);
    expect(parsed.toLookup).toEqual(['185.220.101.4', '2a01:4f8::1', '45.155.205.233']);
    expect(parsed.skipped.map((s) => `${s.ip}:${s.ipClass}`)).toEqual(['10.0.0.5:private', '192.168.1.10:private']);
    expect(parsed.truncated).toBe(0);
  });

  it('reads a CSV column', () => {
    const parsed = parseLookupInput('ip\n1.2.3.4\n5.6.7.8\n1.2.3.4\n', off);
    expect(parsed).toMatchObject({ kind: 'text', toLookup: ['1.2.3.4', '5.6.7.8'], occurrences: 3 });
  });

  it('caps one lookup at 10,000 addresses and says how many were left out', () => {
    const ips: string[] = [];
    for (let i = 0; i < 10_050; i++) ips.push(`11.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    const parsed = parseLookupInput(ips.join(' '), off);
    expect(parsed).toMatchObject({ kind: 'text', truncated: 50 });
    if (parsed.kind === 'text') expect(parsed.toLookup).toHaveLength(10_000);
  });

  it('rejects input with no valid address, with a message that fits', () => {
    expect(parseLookupInput('   ', off)).toMatchObject({ kind: 'invalid', message: expect.stringContaining('Enter an IP') });
    expect(parseLookupInput('999.1.1.1', off)).toMatchObject({ kind: 'invalid', message: '"999.1.1.1" is not a valid IP address.' });
    expect(parseLookupInput('1.2.3', off)).toMatchObject({ kind: 'invalid', message: expect.stringContaining('not a valid IP') });
    expect(parseLookupInput('no addresses in this line', off)).toMatchObject({ kind: 'invalid', message: 'No IP addresses found in this text.' });
  });
});
