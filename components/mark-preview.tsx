/**
 * A live preview of how IPs are marked on scanned pages, drawn the same way the content script
 * draws them: CSS Custom Highlights with the rules of lib/page/marks/highlight-styles.ts.
 */
import { useEffect, useRef } from 'preact/hooks';
import { highlightCss } from '@/lib/page/marks/highlight-styles';
import { SEVERITIES, SEVERITY_LABEL, highlightName, type Severity } from '@/lib/severity';

// Documentation addresses (RFC 5737): a preview must not suggest a real host's reputation.
const SAMPLES: { ip: string; severity: Severity }[] = [
  { ip: '203.0.113.66', severity: 'critical' },
  { ip: '198.51.100.23', severity: 'high' },
  { ip: '192.0.2.140', severity: 'medium' },
  { ip: '203.0.113.7', severity: 'low' },
  { ip: '198.51.100.4', severity: 'clean' },
  { ip: '192.0.2.53', severity: 'whitelisted' },
  { ip: '192.0.2.99', severity: 'failed' },
  { ip: '203.0.113.250', severity: 'unknown' },
  // Past the cap (public, not looked up yet) sits next to private (never sent): they must differ.
  { ip: '198.51.100.77', severity: 'capped' },
  { ip: '10.20.30.40', severity: 'skipped' },
];

export function MarkPreview({ style }: { style: 'underline' | 'background' }) {
  const box = useRef<HTMLDivElement>(null);
  const supported = typeof CSS !== 'undefined' && 'highlights' in CSS && typeof Highlight !== 'undefined';

  useEffect(() => {
    if (!supported || !box.current) return;
    const ranges = new Map<Severity, Range[]>();
    for (const el of box.current.querySelectorAll<HTMLElement>('[data-severity]')) {
      const text = el.firstChild;
      if (!text) continue;
      const range = document.createRange();
      range.selectNodeContents(text);
      const sev = el.dataset.severity as Severity;
      ranges.set(sev, [...(ranges.get(sev) ?? []), range]);
    }
    for (const [sev, list] of ranges) CSS.highlights.set(highlightName(sev), new Highlight(...list));
    return () => {
      for (const sev of ranges.keys()) CSS.highlights.delete(highlightName(sev));
    };
  }, [supported]);

  return (
    <div class="mark-preview" ref={box} aria-label="Preview of marks on a page">
      <style>{highlightCss(SEVERITIES, style)}</style>
      {SAMPLES.map((s) => (
        <p key={s.ip} class="mark-line">
          <span class="mark-time">09:37:40</span> sshd: failed login from <span data-severity={s.severity}>{s.ip}</span>{' '}
          <span class="muted">({SEVERITY_LABEL[s.severity]})</span>
        </p>
      ))}
      {!supported && <p class="muted">This browser cannot draw the preview (no CSS Custom Highlight API).</p>}
    </div>
  );
}
