/**
 * Settings export and import as a JSON file, never with the API key: a settings file gets
 * shared between analysts, a key must not be. Import validates everything first and returns
 * one patch, which the caller saves all-or-nothing.
 */
import { exportableSettingsSchema, type ExportableSettings, type Settings } from '../../settings';
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
  | { ok: true; patch: Partial<ExportableSettings>; notes: string[] }
  | { ok: false; errors: string[] };

const KNOWN = new Set(Object.keys(exportableSettingsSchema.shape));

/** Accepts our file format or a bare settings object; fields left out keep their value. */
export function parseSettingsFile(text: string): ImportResult {
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
  const entries = Object.entries(body as Record<string, unknown>);
  if (entries.some(([k]) => k === 'apiKey')) notes.push('The file contains an API key; it was ignored. Keys are never imported.');
  const unknown = entries.map(([k]) => k).filter((k) => k !== 'apiKey' && !KNOWN.has(k));
  if (unknown.length) notes.push(`Ignored unknown fields: ${unknown.slice(0, 10).join(', ')}.`);
  const candidate = Object.fromEntries(entries.filter(([k]) => KNOWN.has(k)));
  if (!Object.keys(candidate).length) return { ok: false, errors: ['The file has no settings this extension knows.'] };

  const parsed = exportableSettingsSchema.partial().safeParse(candidate);
  if (!parsed.success) {
    return {
      ok: false,
      errors: parsed.error.issues.slice(0, 8).map((i) => `${i.path.join('.') || 'settings'}: ${i.message}`),
    };
  }
  return { ok: true, patch: parsed.data, notes };
}
