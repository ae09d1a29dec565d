/**
 * The organisation sign-in's session with the team gateway: a short-lived session token (sent
 * like a personal token), the refresh token that renews it, when it ends and whom it names.
 * Kept with the API key in the extension's IndexedDB (./key-store.ts): no content script can
 * reach it, and each write signals a credential change so the background builds a new client.
 * Only the background reads the tokens; pages are told the analyst and the expiry.
 */
import { browser } from 'wxt/browser';
import { z } from '../zod';
import { createKeyStore } from './key-store';

/** The gateway's tokens are `iplgs_…`/`iplgr_…`; bounded so a hostile fragment cannot fill storage. */
const tokenSchema = z.string().regex(/^[\x21-\x7e]{16,512}$/);

export const gatewaySessionSchema = z
  .object({
    /** The gateway that issued it: a session is dropped, not sent, when the gateway changes. */
    gatewayUrl: z.string().min(1).max(2048),
    sessionToken: tokenSchema,
    refreshToken: tokenSchema,
    /** Epoch ms when the session token stops working. */
    expiresAt: z.number().int().nonnegative(),
    /** The gateway's name for the analyst, `sso:<email>`. */
    analyst: z.string().min(1).max(320),
    signedInAt: z.number().int().nonnegative(),
  })
  .strict();
export type GatewaySession = z.infer<typeof gatewaySessionSchema>;

const secrets = () => createKeyStore(browser.storage.local);

/** The stored session, or null when none (or an unreadable one: it cannot be used anyway). */
export async function readGatewaySession(): Promise<GatewaySession | null> {
  const parsed = gatewaySessionSchema.safeParse(await secrets().readSecret('gatewaySession'));
  return parsed.success ? parsed.data : null;
}

/** Stores a session, or with null drops it (sign-out, or a session the gateway ended). */
export async function writeGatewaySession(session: GatewaySession | null): Promise<void> {
  await secrets().writeSecret('gatewaySession', session === null ? undefined : gatewaySessionSchema.parse(session));
}
