import { SEVERITY_LABEL, type Severity } from '@/lib/severity';

/** A coloured pill with the severity's name: colour is never the only signal. */
export function SeverityBadge({ severity }: { severity: Severity }) {
  return <span class={`sev-badge sev-${severity}`}>{SEVERITY_LABEL[severity]}</span>;
}
