/**
 * Whether lookups go through the team's gateway, and its addresses. Pure and zod-free, so the
 * popup, the card's code and the background can all ask without loading the schemas.
 *
 * With a gateway set, the background talks to `<gateway>/api/v1` exactly as to the API (the
 * gateway speaks its wire format), with the analyst's personal token or the session the
 * organisation sign-in gave; apiBaseUrl and apiKey stay stored, unused, for when it is unset.
 */
import type { Settings } from './schema';

export function usesTeamGateway(settings: Pick<Settings, 'gatewayUrl'>): boolean {
  return settings.gatewayUrl !== '';
}

/** The gateway's API, which the API client is pointed at. */
export function gatewayApiBase(gatewayUrl: string): string {
  return `${gatewayUrl}/api/v1`;
}

/** One of the gateway's sign-in routes (`info`, `login`, `refresh`, `logout`). */
export function gatewayAuthUrl(gatewayUrl: string, route: 'info' | 'login' | 'refresh' | 'logout'): string {
  return `${gatewayUrl}/auth/${route}`;
}

/** What pages may know of the organisation sign-in: never a token. */
export interface SignInState {
  signedIn: boolean;
  analyst?: string;
  expiresAt?: number;
  gatewayUrl?: string;
}

/** A gateway's GET /auth/info: whether it offers sign-in with the organisation. */
export interface GatewayInfo {
  signIn: boolean;
  issuer: string | null;
}
