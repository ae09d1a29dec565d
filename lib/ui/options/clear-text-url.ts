/**
 * Whether an API base URL would carry the key unencrypted over a network: `http://` to any
 * host but this machine. Loopback (a local proxy, the simulator) never leaves the computer.
 */
export function sendsKeyInClear(baseUrl: string): boolean {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    return false;
  }
  return url.protocol === 'http:' && !isLoopbackHost(url.hostname);
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  // The URL parser has already put IPv4 in dotted-decimal form (127.1 -> 127.0.0.1).
  return /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The origin the analyst agrees to send the key to in clear (consent is per origin). */
export function originOf(baseUrl: string): string | null {
  try {
    return new URL(baseUrl.trim()).origin;
  } catch {
    return null;
  }
}
