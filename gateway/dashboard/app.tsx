/**
 * The team dashboard: a sign-in form for the admin token, then the team's numbers. Everything
 * shown comes from the summary endpoint and is rendered as text; the token stays in memory.
 */
import { useState } from 'preact/hooks';
import type { Summary } from '../src/dashboard/summary-schema';
import { PaidSavedChart, QuotaChart } from './charts';
import { formatCount, formatLimit, formatPercent, formatTime } from './format';
import { fetchSummary } from './summary-client';

const SPANS = [7, 14, 30, 90];

export function DashboardApp() {
  const [token, setToken] = useState<string | null>(null);
  const [summary, setSummary] = useState<Summary | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [days, setDays] = useState(14);

  const load = async (withToken: string, span: number) => {
    setBusy(true);
    const result = await fetchSummary(withToken, span);
    setBusy(false);
    if (result.ok) {
      setToken(withToken);
      setSummary(result.summary);
      setError(null);
    } else {
      setError(result.message);
      // A refused token is forgotten: the form comes back with the reason.
      if (result.status === 401 || result.status === 403) {
        setToken(null);
        setSummary(null);
      }
    }
  };

  if (!token || !summary) return <SignIn busy={busy} error={error} onSubmit={(t) => void load(t, days)} />;
  return (
    <>
      <header class="top">
        <h1>Team dashboard</h1>
        <p class="muted">
          Organisation {summary.quota.organizationId ?? 'unknown'} · updated {formatTime(summary.generatedAt)}
        </p>
        <div class="actions">
          <label>
            Period{' '}
            <select
              value={String(days)}
              onChange={(e) => {
                const span = Number((e.currentTarget as HTMLSelectElement).value);
                setDays(span);
                void load(token, span);
              }}
            >
              {SPANS.filter((s) => s <= summary.historyDays).map((s) => (
                <option key={s} value={String(s)}>
                  Last {s} days
                </option>
              ))}
            </select>
          </label>
          <button type="button" onClick={() => void load(token, days)} disabled={busy}>
            {busy ? 'Refreshing…' : 'Refresh'}
          </button>
          <button
            type="button"
            onClick={() => {
              setToken(null);
              setSummary(null);
              setError(null);
            }}
          >
            Sign out
          </button>
        </div>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </header>
      <main>
        <Overview summary={summary} days={days} />
        <section aria-labelledby="units-heading">
          <h2 id="units-heading">Units per day</h2>
          <PaidSavedChart days={summary.days} />
        </section>
        <section aria-labelledby="quota-heading">
          <h2 id="quota-heading">Organisation quota over time</h2>
          <QuotaChart days={summary.days} />
        </section>
        <Analysts summary={summary} />
        <MostSeen summary={summary} />
        <Replicas summary={summary} />
      </main>
    </>
  );
}

function SignIn({ busy, error, onSubmit }: { busy: boolean; error: string | null; onSubmit: (token: string) => void }) {
  const [value, setValue] = useState('');
  return (
    <main class="sign-in">
      <h1>Team dashboard</h1>
      <p>The team's quota, what the shared cache saved, each analyst's use and the gateway's health. Open it with the gateway's admin token (or, with single sign-on, an ID token of the admin group).</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim()) onSubmit(value.trim());
        }}
      >
        <label for="admin-token">Admin token</label>
        <input id="admin-token" type="password" autocomplete="off" spellcheck={false} required value={value} onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} aria-describedby={error ? 'sign-in-error' : undefined} />
        <button type="submit" disabled={busy}>
          {busy ? 'Opening…' : 'Open dashboard'}
        </button>
      </form>
      {error && (
        <p id="sign-in-error" class="error" role="alert">
          {error}
        </p>
      )}
      <p class="muted">The token stays in this page's memory: reloading the page asks for it again.</p>
    </main>
  );
}

function Overview({ summary, days }: { summary: Summary; days: number }) {
  const { totals, quota } = summary;
  const tiles: [string, string, string][] = [
    ['units-paid', `Units paid (${days} days)`, formatCount(totals.paid)],
    ['units-saved', `Units saved by the shared cache (${days} days)`, formatCount(totals.saved)],
    ['hit-rate', 'Cache hit rate', formatPercent(totals.hitRate)],
    ['quota-used', 'Organisation quota used', `${formatCount(quota.used)} of ${formatLimit(quota.limit)}`],
    ['quota-left', 'Left before the team reserve', quota.leftBeforeReserve === null ? 'no limit' : formatCount(quota.leftBeforeReserve)],
  ];
  return (
    <section aria-labelledby="overview-heading">
      <h2 id="overview-heading">Overview</h2>
      <dl class="tiles">
        {tiles.map(([id, label, value]) => (
          <div class="tile" key={id} data-stat={id}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <p class="muted">
        Saved: the found answers analysts got from the team's cache, each a unit they would have paid on their own. Hit rate: IPs answered from the cache among all IPs
        answered. The reserve ({quota.reservePercent}% of the limit) is never spent by lookups
        {quota.refreshedAt ? `; quota read ${formatTime(quota.refreshedAt)}` : ''}.
      </p>
    </section>
  );
}

function Analysts({ summary }: { summary: Summary }) {
  return (
    <section aria-labelledby="analysts-heading">
      <h2 id="analysts-heading">Analysts today</h2>
      {summary.analysts.length === 0 ? (
        <p>No analyst tokens yet, and nobody signed in has looked anything up today.</p>
      ) : (
        <table class="analysts">
          <caption>Each analyst's units today (UTC) against their daily budget</caption>
          <thead>
            <tr>
              <th scope="col">Analyst</th>
              <th scope="col">Units today</th>
              <th scope="col">Budget</th>
              <th scope="col">Use of budget</th>
              <th scope="col">IPs asked today</th>
              <th scope="col">Last used</th>
            </tr>
          </thead>
          <tbody>
            {summary.analysts.map((a) => (
              <tr key={a.name} data-analyst={a.name}>
                <th scope="row">{a.name}</th>
                <td data-col="units">{formatCount(a.unitsToday)}</td>
                <td data-col="budget">{a.budget === null ? 'none' : formatCount(a.budget)}</td>
                <td>
                  {a.budget === null ? (
                    'no budget'
                  ) : (
                    <meter min={0} max={a.budget} value={Math.min(a.unitsToday, a.budget)} aria-label={`${a.name}: ${formatCount(a.unitsToday)} of ${formatCount(a.budget)} units`}>
                      {formatCount(a.unitsToday)} of {formatCount(a.budget)}
                    </meter>
                  )}
                </td>
                <td data-col="ips">{formatCount(a.ipsToday)}</td>
                <td>{a.kind === 'sso' ? 'signed in' : formatTime(a.lastUsedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function MostSeen({ summary }: { summary: Summary }) {
  return (
    <section aria-labelledby="seen-heading">
      <h2 id="seen-heading">Most-seen IPs</h2>
      {summary.mostSeen === null ? (
        <p>This gateway keeps no team sightings.</p>
      ) : summary.mostSeen.length === 0 ? (
        <p>No IP has been looked up by the team yet.</p>
      ) : (
        <table>
          <caption>The IPs the most analysts looked up, with the severity of the team's cached answer</caption>
          <thead>
            <tr>
              <th scope="col">IP</th>
              <th scope="col">Analysts</th>
              <th scope="col">Severity</th>
              <th scope="col">Score</th>
              <th scope="col">Last looked up</th>
            </tr>
          </thead>
          <tbody>
            {summary.mostSeen.map((s) => (
              <tr key={s.ip}>
                <th scope="row" class="ip">
                  {s.ip}
                </th>
                <td>{formatCount(s.analysts)}</td>
                <td>{s.severity ? <span class={`severity severity-${s.severity}`}>{s.severity}</span> : 'no cached answer'}</td>
                <td>{s.score === null ? '-' : String(s.score)}</td>
                <td>{formatTime(s.lastSeenAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Replicas({ summary }: { summary: Summary }) {
  const { store, replicas } = summary;
  return (
    <section aria-labelledby="health-heading">
      <h2 id="health-heading">Gateway health</h2>
      <p data-stat="store">
        Store: {store.kind}, {store.ok ? `reachable (${store.latencyMs ?? '?'} ms)` : 'NOT reachable: lookups fail closed until it is back'}
      </p>
      <table>
        <caption>Replicas that reported in the last 30 seconds</caption>
        <thead>
          <tr>
            <th scope="col">Replica</th>
            <th scope="col">Host</th>
            <th scope="col">Started</th>
            <th scope="col">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {replicas.map((r) => (
            <tr key={r.id}>
              <th scope="row">
                {r.id.slice(0, 8)}
                {r.self ? ' (answered this page)' : ''}
              </th>
              <td>{r.host}</td>
              <td>{formatTime(r.startedAt)}</td>
              <td>{formatTime(r.seenAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
