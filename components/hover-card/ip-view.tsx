/**
 * One IP in a card: its reputation (the shared ReputationDetails component) when answered, or
 * what is happening while it is not.
 */
import type { ComponentChildren } from 'preact';
import { IpText } from '@/components/ip-text';
import { ReputationDetails } from '@/components/reputation-details';
import { SeverityBadge } from '@/components/severity-badge';
import type { LookupResult } from '@/lib/lookup/types';
import type { SeverityThresholds } from '@/lib/severity';
import { describeError } from '@/lib/ui/shared/error-messages';

export interface IpViewProps {
  ip: string;
  result: LookupResult | undefined;
  thresholds: SeverityThresholds;
  headingLevel: 2 | 3;
  /** The compact first view's "More" (see ReputationDetails). */
  more?: { open: boolean; onToggle: () => void };
  children?: ComponentChildren;
}

function errorText(error: Extract<LookupResult, { status: 'error' }>['error']): string {
  const d = describeError(error);
  return `${d.title}: ${d.message} (${d.detail})`;
}

export function IpView({ ip, result, thresholds, headingLevel, more, children }: IpViewProps) {
  if (result) {
    return (
      <ReputationDetails result={result} thresholds={thresholds} headingLevel={headingLevel} describeError={errorText} {...(more ? { more } : {})}>
        {children}
      </ReputationDetails>
    );
  }
  const Heading = headingLevel === 3 ? 'h3' : 'h2';
  return (
    <section class="rep rep-pending" aria-label={`Reputation of ${ip}`} aria-busy="true">
      <header class="rep-head">
        <Heading class="rep-ip">
          <IpText ip={ip} />
        </Heading>
        <SeverityBadge severity="pending" />
      </header>
      <p class="rep-note">Looking up this address…</p>
      {children && <div class="rep-actions">{children}</div>}
    </section>
  );
}
