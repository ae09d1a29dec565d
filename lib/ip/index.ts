/**
 * IP detection for page text and user input. The content script imports this, so it stays
 * dependency-free and small.
 */
export { findIps, forEachIp, type ScanStats } from './find-ips';
export { classifyIp } from './classify';
export { defangIp } from './defang';
export { normalizeIp } from './normalize';
export { isLookupable, lookupSkipReason, toLookupForm, type LookupPolicyForIp } from './lookupable';
export { isValidIp, isValidIpv4, ipKey, parseCidr } from './validate-ip';
export type { IpClass, IpMatch } from './types';
