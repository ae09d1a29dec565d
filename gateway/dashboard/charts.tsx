/**
 * Plain SVG charts, each an image with a title and a description saying what it shows in
 * words, followed by the same numbers as a table for anyone who would rather read them.
 */
import type { DayRow } from '../src/dashboard/summary-schema';
import { formatCount, formatDay, formatLimit } from './format';

const WIDTH = 640;
const HEIGHT = 220;
const PAD = { top: 12, right: 12, bottom: 28, left: 48 };
const plotW = WIDTH - PAD.left - PAD.right;
const plotH = HEIGHT - PAD.top - PAD.bottom;

/** A round top for the y axis: 1, 2 or 5 times a power of ten, at least `max`. */
export function niceMax(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((m) => m * power).find((v) => v >= max)!;
}

function YAxis({ top }: { top: number }) {
  const ticks = [0, top / 2, top];
  return (
    <g class="axis" aria-hidden="true">
      {ticks.map((t) => {
        const y = PAD.top + plotH - (t / top) * plotH;
        return (
          <g key={t}>
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y} y2={y} class="grid" />
            <text x={PAD.left - 6} y={y + 4} text-anchor="end">
              {formatCount(Math.round(t))}
            </text>
          </g>
        );
      })}
    </g>
  );
}

function XLabels({ days }: { days: DayRow[] }) {
  const step = Math.max(1, Math.ceil(days.length / 8));
  const slot = plotW / days.length;
  return (
    <g class="axis" aria-hidden="true">
      {days.map((d, i) =>
        i % step === 0 || i === days.length - 1 ? (
          <text key={d.day} x={PAD.left + slot * i + slot / 2} y={HEIGHT - 8} text-anchor="middle">
            {formatDay(d.day)}
          </text>
        ) : null,
      )}
    </g>
  );
}

export function PaidSavedChart({ days }: { days: DayRow[] }) {
  const paid = days.reduce((t, d) => t + d.paid, 0);
  const saved = days.reduce((t, d) => t + d.saved, 0);
  const top = niceMax(Math.max(...days.map((d) => Math.max(d.paid, d.saved))));
  const slot = plotW / days.length;
  const bar = Math.max(1, slot * 0.38);
  const height = (n: number) => (n / top) * plotH;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="paid-saved-title paid-saved-desc" class="chart-svg">
        <title id="paid-saved-title">Units per day: paid and saved by the shared cache</title>
        <desc id="paid-saved-desc">{`Over the last ${days.length} days the gateway paid ${formatCount(paid)} units and the shared cache saved ${formatCount(saved)}. The table below has each day's numbers.`}</desc>
        <YAxis top={top} />
        {days.map((d, i) => {
          const x = PAD.left + slot * i + slot / 2;
          return (
            <g key={d.day}>
              <rect class="bar-paid" x={x - bar} y={PAD.top + plotH - height(d.paid)} width={bar} height={height(d.paid)} />
              <rect class="bar-saved" x={x} y={PAD.top + plotH - height(d.saved)} width={bar} height={height(d.saved)} />
            </g>
          );
        })}
        <XLabels days={days} />
      </svg>
      <figcaption class="legend">
        <span class="key key-paid" aria-hidden="true" /> Paid (bought from the API) <span class="key key-saved" aria-hidden="true" /> Saved (answered from the team's cache)
      </figcaption>
      <details class="table-alt">
        <summary>Units per day as a table</summary>
        <table>
          <caption>Units paid and saved per UTC day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Paid</th>
              <th scope="col">Saved</th>
              <th scope="col">Cache hits</th>
              <th scope="col">Bought</th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.day}>
                <th scope="row">{d.day}</th>
                <td>{formatCount(d.paid)}</td>
                <td>{formatCount(d.saved)}</td>
                <td>{formatCount(d.hits)}</td>
                <td>{formatCount(d.misses)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** The organisation's usage on each day it was seen, against its limit. */
export function QuotaChart({ days }: { days: DayRow[] }) {
  const seen = days.filter((d) => d.quotaUsed !== null);
  if (!seen.length) return <p>No quota reading yet: the gateway reads it with the first lookup or within a minute.</p>;
  const top = niceMax(Math.max(...seen.map((d) => Math.max(d.quotaUsed!, d.quotaLimit ?? 0))));
  const slot = plotW / days.length;
  const y = (n: number) => PAD.top + plotH - (n / top) * plotH;
  const points = days.flatMap((d, i) => (d.quotaUsed === null ? [] : [`${PAD.left + slot * i + slot / 2},${y(d.quotaUsed)}`]));
  const last = seen[seen.length - 1]!;
  const left = last.quotaLimit === null ? null : Math.max(0, last.quotaLimit - last.quotaUsed!);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="quota-title quota-desc" class="chart-svg">
        <title id="quota-title">The organisation's quota used over time</title>
        <desc id="quota-desc">{`On ${last.day} the organisation had used ${formatCount(last.quotaUsed!)} of ${formatLimit(last.quotaLimit)}${left === null ? '' : `, ${formatCount(left)} left`}. The table below has each day's reading.`}</desc>
        <YAxis top={top} />
        {last.quotaLimit !== null && <line class="limit-line" x1={PAD.left} x2={WIDTH - PAD.right} y1={y(last.quotaLimit)} y2={y(last.quotaLimit)} />}
        <polyline class="used-line" points={points.join(' ')} />
        {days.map((d, i) => (d.quotaUsed === null ? null : <circle key={d.day} class="used-dot" cx={PAD.left + slot * i + slot / 2} cy={y(d.quotaUsed)} r={3} />))}
        <XLabels days={days} />
      </svg>
      <figcaption class="legend">
        <span class="key key-used" aria-hidden="true" /> Used <span class="key key-limit" aria-hidden="true" /> Limit
      </figcaption>
      <details class="table-alt">
        <summary>Quota per day as a table</summary>
        <table>
          <caption>The organisation's quota as last read each UTC day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Used</th>
              <th scope="col">Limit</th>
              <th scope="col">Left</th>
            </tr>
          </thead>
          <tbody>
            {seen.map((d) => (
              <tr key={d.day}>
                <th scope="row">{d.day}</th>
                <td>{formatCount(d.quotaUsed!)}</td>
                <td>{formatLimit(d.quotaLimit)}</td>
                <td>{d.quotaLimit === null ? '-' : formatCount(Math.max(0, d.quotaLimit - d.quotaUsed!))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
