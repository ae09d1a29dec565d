/**
 * Settings export and import as a JSON file, never with the API key: a settings file gets
 * shared between analysts, a key must not be. Import validates everything first and returns
 * one patch, which the caller saves all-or-nothing.
 *
 * An import never changes where the key goes (API base URL, key header): the file may come
 * from anyone, and a changed address would send the key there on the next lookup without the
 * permission request of the normal Save. The file's values are reported, not applied.
 *
 * "Open in …" services are imported (a team shares its pivots this way), but a file that points
 * them at a site the analyst did not use before says which, since the IPs opened there go to it.
 */
import {
  exportableSettingsSchema,
  importableSettingsSchema,
  type ExportableSettings,
  type ImportableSettings,
  type Settings,
} from '../../settings';
import type { Pivot } from '../../pivots';
import { isoOrNull } from '../shared/export-rows';

export const SETTINGS_FILE_FORMAT = 'ip-reputation-lens/settings';
export const SETTINGS_FILE_VERSION = 1;

export function settingsToFile(settings: Settings, exportedAt: number): string {
  const exportable: ExportableSettings = exportableSettingsSchema.parse(settings);
  const file = {
    format: SETTINGS_FILE_FORMAT,
    version: SETTINGS_FILE_VERSION,
    exportedAt: isoOrNull(exportedAt),
    settings: exportable,
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

export type ImportResult =
  | { ok: true; patch: Partial<ImportableSettings>; notes: string[] }
  | { ok: false; errors: string[] };

/** Where the key goes now; an import that names another place says so and applies nothing of it. */
export type KeyDestination = Pick<Settings, 'apiBaseUrl' | 'authHeader'>;
/** What the import compares the file with: where the key goes, and the pivots in use. */
export type CurrentSettings = KeyDestination & { pivots?: readonly Pivot[] };

const KNOWN = new Set(Object.keys(importableSettingsSchema.shape));
const KEY_DESTINATION_FIELDS = new Set(['apiBaseUrl', 'authHeader', 'gatewayUrl', 'gatewayAuth']);
/** Secrets a file may hold (an analyst's own export from an older build, a hand-made file): never imported. */
const SECRET_FIELDS = new Map([
  ['apiKey', 'an API key'],
  ['gatewayToken', 'a gateway token'],
]);

/** Accepts our file format or a bare settings object; fields left out keep their value. */
export function parseSettingsFile(text: string, current: CurrentSettings): ImportResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, errors: ['The file is not JSON. Choose a file exported from this page.'] };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, errors: ['The file does not hold settings.'] };
  }
  const wrapper = raw as Record<string, unknown>;
  if (wrapper.format !== undefined && wrapper.format !== SETTINGS_FILE_FORMAT) {
    return { ok: false, errors: [`This is not an IP Reputation Lens settings file (format "${String(wrapper.format).slice(0, 60)}").`] };
  }
  if (typeof wrapper.version === 'number' && wrapper.version > SETTINGS_FILE_VERSION) {
    return { ok: false, errors: ['The file comes from a newer version of the extension. Update the extension first.'] };
  }
  const body = wrapper.format !== undefined ? wrapper.settings : wrapper;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { ok: false, errors: ['The file has no settings.'] };

  const notes: string[] = [];
  const fields = body as Record<string, unknown>;
  const entries = Object.entries(fields);
  const secrets = entries.flatMap(([k]) => SECRET_FIELDS.get(k) ?? []);
  if (secrets.length) notes.push(`The file contains ${secrets.join(' and ')}; it was ignored. Keys are never imported.`);
  const destinationNote = keyDestinationNote(fields, current);
  if (destinationNote) notes.push(destinationNote);
  const unknown = entries.map(([k]) => k).filter((k) => !SECRET_FIELDS.has(k) && !KEY_DESTINATION_FIELDS.has(k) && !KNOWN.has(k));
  if (unknown.length) notes.push(`Ignored unknown fields: ${unknown.slice(0, 10).join(', ')}.`);
  const candidate = Object.fromEntries(entries.filter(([k]) => KNOWN.has(k)));
  if (!Object.keys(candidate).length) {
    return { ok: false, errors: ['The file has no settings this extension imports.', ...notes] };
  }

  const parsed = importableSettingsSchema.partial().safeParse(candidate);
  if (!parsed.success) {
    return {
      ok: false,
      errors: parsed.error.issues.slice(0, 8).map((i) => `${i.path.join('.') || 'settings'}: ${i.message}`),
    };
  }
  const pivotNote = parsed.data.pivots && current.pivots ? newPivotHostsNote(parsed.data.pivots, current.pivots) : null;
  if (pivotNote) notes.push(pivotNote);
  return { ok: true, patch: parsed.data, notes };
}

/** Names the sites the file's enabled "Open in …" links would open that the current ones do not. */
function newPivotHostsNote(imported: readonly Pivot[], current: readonly Pivot[]): string | null {
  const known = new Set(current.map((p) => hostOf(p.urlTemplate)));
  const added = imported
    .filter((p) => p.enabled)
    .map((p) => ({ name: p.name.trim().slice(0, 40), host: hostOf(p.urlTemplate) }))
    .filter((p) => p.host && !known.has(p.host));
  if (!added.length) return null;
  const listed = added.slice(0, 10).map((p) => `${p.name} (${p.host})`);
  return (
    `The file's "Open in …" links open new sites: ${listed.join(', ')}. An address you open there is sent to that site; ` +
    'check them under Open in … before you use them.'
  );
}

function hostOf(template: string): string {
  try {
    return new URL(template.replace('{ip}', 'ip')).host.slice(0, 100);
  } catch {
    return '';
  }
}

/** Says which API server or key header the file names, when it differs from the current one. */
function keyDestinationNote(fields: Record<string, unknown>, current: KeyDestination): string | null {
  const named: string[] = [];
  const server = fields.apiBaseUrl;
  if (server !== undefined && !sameText(server, current.apiBaseUrl)) {
    named.push(`the API server ${shownUrl(server)}`);
  }
  const header = fields.authHeader;
  if (header !== undefined && !sameText(header, current.authHeader)) {
    named.push(`the key header "${String(header).slice(0, 40)}"`);
  }
  if (!named.length) return null;
  return (
    `The file names ${named.join(' and ')}; not applied. An imported file never changes where your API key is sent: ` +
    'to use it, enter it under API and press Save, which asks for access to that server.'
  );
}

function sameText(a: unknown, b: string): boolean {
  return typeof a === 'string' && a.trim().replace(/\/+$/, '') === b;
}

/** The file's URL as a reader may see it: no credentials, bounded length. */
function shownUrl(value: unknown): string {
  if (typeof value !== 'string') return '(not a URL)';
  try {
    const url = new URL(value.trim());
    url.username = '';
    url.password = '';
    return url.href.slice(0, 200);
  } catch {
    return '(not a URL)';
  }
}
