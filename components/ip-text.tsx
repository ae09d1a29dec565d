/**
 * An IP address as text that never breaks inside a number: an analyst reads `193.110.107.2`
 * on one line and `47` on the next as two different things. IPv4 has no break opportunity;
 * IPv6 gets one after each colon (<wbr>, which adds no character to copied text), so a long
 * address still fits a narrow popup.
 */
import { Fragment } from 'preact';

export function IpText({ ip }: { ip: string }) {
  if (!ip.includes(':')) return <>{ip}</>;
  const groups = ip.split(':');
  return (
    <>
      {groups.map((group, i) => (
        <Fragment key={i}>
          {group}
          {i < groups.length - 1 && (
            <>
              :<wbr />
            </>
          )}
        </Fragment>
      ))}
    </>
  );
}
