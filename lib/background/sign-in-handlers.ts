/**
 * The options page's sign-in with the organisation: run here, in the worker, which outlives the
 * page and holds the tokens (lib/background/gateway-sign-in.ts). Pages learn who is signed in
 * and until when, never a token.
 */
import type { Handlers } from '../message-router';
import { gatewaySignIn, type GatewaySignIn } from './gateway-sign-in';

export type SignInMessageType = 'ui:gateway-info' | 'ui:sign-in' | 'ui:sign-out' | 'ui:get-sign-in';

export function createSignInHandlers(signIn: GatewaySignIn = gatewaySignIn()) {
  const handlers: Handlers<SignInMessageType> = {
    'ui:gateway-info': ({ gatewayUrl }) => signIn.info(gatewayUrl),
    'ui:sign-in': () => signIn.signIn(),
    'ui:sign-out': () => signIn.signOut(),
    'ui:get-sign-in': () => signIn.state(),
  };
  return { handlers, start: () => signIn.start() };
}
