/**
 * What the options page shows as "Set by your organisation": the policy's locks, as the
 * background's settings module reports them (lib/settings/managed.ts). Never the managed key.
 */
import type { LockPath, ManagedView } from '../../settings';

export const SET_BY_ORGANISATION = 'Set by your organisation.';

export const NO_MANAGED_VIEW: ManagedView = { locked: [], keyManaged: false, proxyAddsKey: false, problems: [] };

export function isLocked(view: ManagedView, path: LockPath): boolean {
  return view.locked.includes(path);
}

/** A field's help text: the organisation's word when locked, else its own. */
export function lockedHelp(view: ManagedView, path: LockPath, help: string): string {
  return isLocked(view, path) ? `${SET_BY_ORGANISATION} ${help}` : help;
}
