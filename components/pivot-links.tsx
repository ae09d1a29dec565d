/**
 * "Open in …" links for one IP in the popup (its rows and the single lookup's answer). The
 * popup is the extension's own page, so these are plain links: a new tab, no `window.opener`,
 * no Referer. The popup provides the stored services through PivotsContext; without it (the
 * options page, tests of other parts) nothing is offered.
 */
import { createContext, type ComponentChildren } from 'preact';
import { useContext } from 'preact/hooks';
import { pivotLinks, type Pivot } from '@/lib/pivots';

export const PivotsContext = createContext<readonly Pivot[]>([]);
const NONE: readonly Pivot[] = [];

/** Provides the stored services as they load and change (a settings signal: read in render, so followed). */
export function StoredPivots({ settings, children }: { settings: { readonly value: { pivots: Pivot[] } | null }; children: ComponentChildren }) {
  return <PivotsContext.Provider value={settings.value?.pivots ?? NONE}>{children}</PivotsContext.Provider>;
}

export function PivotLinks({ ip }: { ip: string }) {
  const links = pivotLinks(useContext(PivotsContext), ip);
  if (!links.length) return null;
  return (
    <nav class="pivot-links" aria-label={`Open ${ip} in`}>
      <span class="muted">Open in</span>
      {links.map((l) => (
        <a key={l.id} class="btn btn-small" href={l.url} target="_blank" rel="noopener noreferrer" title={l.url}>
          {l.name}
        </a>
      ))}
    </nav>
  );
}
