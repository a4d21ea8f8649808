// Small SVG charts, drawn from a route's series as it is: no chart library (the four shapes the
// console needs fit in this file). Each chart is an image with a text alternative (its aria-label
// says what it shows and its extremes) and, where the figures matter, a data table under it.
//
//   <${BarChart} label="Tickets opened and resolved, last 30 days" points=${volume}
//      x=${(p) => p.date} series=${[{ key: 'opened', name: 'Opened' }, { key: 'resolved', name: 'Resolved' }]} />
import { html, useEffect, useRef, useState } from '../lib/html.js';
import { number } from '../lib/format.js';
import { TableWrap } from './table.js';

const H = 160;
const PAD = { top: 8, right: 4, bottom: 18, left: 32 };

// The width the chart has on screen, so that it is drawn at its own size: its labels keep their
// size at any width instead of shrinking with the picture.
function useWidth(initial = 600) {
  const ref = useRef(null);
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return undefined;
    const observer = new ResizeObserver(([entry]) => {
      const w = Math.round(entry.contentRect.width);
      if (w > 0) setWidth(w);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

// The axis's top: a round number at or above the largest value whose half is round too.
function niceMax(max) {
  if (max <= 0) return 1;
  const step = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 4, 6, 8, 10]) if (m * step >= max) return m * step;
  return 10 * step;
}

function Axis({ W, max, digits: wanted, tick }) {
  const ys = [0, max / 2, max];
  const digits = max >= 10 ? 0 : wanted; // "50", not "50.0"
  const inner = H - PAD.top - PAD.bottom;
  return ys.map((v) => {
    const y = PAD.top + inner - (v / max) * inner;
    return html`<g key=${v}>
      <line class="grid-line" x1=${PAD.left} x2=${W - PAD.right} y1=${y} y2=${y} />
      <text class="axis" x=${PAD.left - 4} y=${y + 3} text-anchor="end">${tick ? tick(v) : number(v, digits)}</text>
    </g>`;
  });
}

function XLabels({ W, points, x, format }) {
  const n = points.length;
  if (!n) return null;
  const inner = W - PAD.left - PAD.right;
  const every = Math.max(1, Math.ceil(n / Math.max(2, Math.floor(inner / 70))));
  return points.map((p, i) => (i % every === 0 || i === n - 1
    ? html`<text key=${i} class="axis" x=${PAD.left + ((i + 0.5) / n) * inner} y=${H - 4} text-anchor="middle">${format(x(p))}</text>`
    : null));
}

// The figures behind a chart, for whoever reads rather than looks.
export function DataTable({ caption, points, columns }) {
  return html`<details class="data-table">
    <summary>Show the figures</summary>
    <${TableWrap} label=${caption}><table>
      <caption class="visually-hidden">${caption}</caption>
      <thead><tr>${columns.map((c) => html`<th scope="col" class=${c.num ? 'num' : ''}>${c.name}</th>`)}</tr></thead>
      <tbody>${points.map((p, i) => html`<tr key=${i}>${columns.map((c) => html`<td class=${c.num ? 'num' : ''}>${c.value(p)}</td>`)}</tr>`)}</tbody>
    </table><//>
  </details>`;
}

function extremes(points, key, x, format, value = number) {
  if (!points.length) return 'no data';
  let hi = points[0];
  for (const p of points) if ((p[key] ?? 0) > (hi[key] ?? 0)) hi = p;
  const total = points.reduce((s, p) => s + (Number(p[key]) || 0), 0);
  return `total ${value(total)}, highest ${value(hi[key] ?? 0)} on ${format(x(hi))}`;
}

// Grouped bars: one group per point, one bar per series. `tick` formats the axis's figures
// (default: the number with `digits`), `value` the figures in the text alternative.
export function BarChart({ label, points, x, series, format = String, digits = 0, tick, value }) {
  const [ref, W] = useWidth();
  // counts: at least 0, 2, 4 on the axis, so that its labels are whole numbers
  const max = niceMax(Math.max(4, ...points.flatMap((p) => series.map((s) => Number(p[s.key]) || 0))));
  const inner = { w: W - PAD.left - PAD.right, h: H - PAD.top - PAD.bottom };
  const slot = points.length ? inner.w / points.length : inner.w;
  const bar = Math.max(1, (slot * 0.8) / series.length);
  const shown = value || ((v) => number(v, digits));
  const alt = `${label}: ${series.map((s) => `${s.name.toLowerCase()} ${extremes(points, s.key, x, format, shown)}`).join('; ')}.`;
  return html`<figure class="chart" ref=${ref}>
    <svg viewBox=${`0 0 ${W} ${H}`} width=${W} height=${H} role="img" aria-label=${alt}>
      <${Axis} W=${W} max=${max} digits=${digits} tick=${tick} />
      ${points.map((p, i) => series.map((s, j) => {
        const v = Number(p[s.key]) || 0;
        const h = (v / max) * inner.h;
        return html`<rect key=${`${i}-${j}`} class=${`series-${j + 1}`} x=${PAD.left + i * slot + slot * 0.1 + j * bar}
          y=${PAD.top + inner.h - h} width=${bar} height=${h}><title>${`${format(x(p))}: ${s.name.toLowerCase()} ${shown(v)}`}</title></rect>`;
      }))}
      <${XLabels} W=${W} points=${points} x=${x} format=${format} />
    </svg>
    <figcaption class="legend">${series.map((s, j) => html`<span key=${s.key}><span class=${`swatch series-${j + 1}`}></span>${s.name}</span>`)}</figcaption>
  </figure>`;
}

// A line, with a dot on each point that has a value (a null is a gap, not a zero).
export function LineChart({ label, points, x, y, name, format = String, digits = 1, unit = '' }) {
  const [ref, W] = useWidth();
  const values = points.map((p) => (y(p) === null || y(p) === undefined ? null : Number(y(p))));
  const max = niceMax(Math.max(0, ...values.filter((v) => v !== null)));
  const inner = { w: W - PAD.left - PAD.right, h: H - PAD.top - PAD.bottom };
  const at = (i, v) => [PAD.left + ((i + 0.5) / points.length) * inner.w, PAD.top + inner.h - (v / max) * inner.h];
  let d = '';
  values.forEach((v, i) => {
    if (v === null) return;
    const [px, py] = at(i, v);
    d += `${d && values[i - 1] !== null ? 'L' : 'M'}${px.toFixed(1)},${py.toFixed(1)}`;
  });
  const known = values.filter((v) => v !== null);
  const alt = known.length
    ? `${label}: ${known.length} of ${points.length} days have a value, from ${number(Math.min(...known), digits)} to ${number(Math.max(...known), digits)}${unit}.`
    : `${label}: no value in this period.`;
  return html`<figure class="chart" ref=${ref}>
    <svg viewBox=${`0 0 ${W} ${H}`} width=${W} height=${H} role="img" aria-label=${alt}>
      <${Axis} W=${W} max=${max} digits=${digits} />
      <path class="line series-1" d=${d} />
      ${values.map((v, i) => (v === null ? null : html`<circle key=${i} class="series-1" cx=${at(i, v)[0]} cy=${at(i, v)[1]} r="2.5"><title>${`${format(x(points[i]))}: ${number(v, digits)}${unit}`}</title></circle>`))}
      <${XLabels} W=${W} points=${points} x=${x} format=${format} />
    </svg>
    <figcaption class="legend"><span><span class="swatch series-1"></span>${name}</span></figcaption>
  </figure>`;
}

// A small line without axes, for a trend beside its figure.
export function Sparkline({ label, values }) {
  const nums = values.map((v) => Number(v) || 0);
  const max = Math.max(1, ...nums);
  const w = 100;
  const h = 24;
  const d = nums.map((v, i) => `${i ? 'L' : 'M'}${((i / Math.max(1, nums.length - 1)) * w).toFixed(1)},${(h - (v / max) * (h - 2) - 1).toFixed(1)}`).join('');
  const alt = nums.length ? `${label}: ${nums.length} days, from ${number(Math.min(...nums))} to ${number(Math.max(...nums))}, last ${number(nums[nums.length - 1])}.` : `${label}: no data.`;
  return html`<div class="sparkline chart"><svg viewBox=${`0 0 ${w} ${h}`} preserveAspectRatio="none" role="img" aria-label=${alt}>
    <path class="line series-1" d=${d} vector-effect="non-scaling-stroke" />
  </svg></div>`;
}

// A worker's 24 hourly buckets: successes (green) under failures (red), scaled to the busiest hour.
export function Buckets({ label, buckets, hour = (b) => b.hour }) {
  const max = Math.max(1, ...buckets.map((b) => (b.success || 0) + (b.failure || 0)));
  const total = buckets.reduce((s, b) => ({ success: s.success + (b.success || 0), failure: s.failure + (b.failure || 0) }), { success: 0, failure: 0 });
  const alt = `${label}: ${number(total.success)} succeeded and ${number(total.failure)} failed in the last 24 hours.`;
  return html`<div class="buckets" role="img" aria-label=${alt}>
    ${buckets.map((b, i) => {
      const s = ((b.success || 0) / max) * 100;
      const f = ((b.failure || 0) / max) * 100;
      return html`<div class="bucket" key=${i} title=${`${hour(b)}: ${b.success || 0} succeeded, ${b.failure || 0} failed`}>
        <div class="s" style=${{ height: `${s}%` }}></div><div class="f" style=${{ height: `${f}%` }}></div>
      </div>`;
    })}
  </div>`;
}
