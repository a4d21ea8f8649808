// Engagement: the summary (GET /api/mobile/engagement/summary), the daily trend as sparklines
// (GET /api/mobile/engagement/trend) and the users (GET /api/mobile/engagement/users), each with
// ?period=D7|D30|D90 (the switch, kept in the fragment's query; 30 days unless chosen), and the
// users' photos (GET /api/mobile/engagement/user/{userId}/photo), initials where there is none.
// Days are UTC dates whatever the user's zone (the spec's rule 5), and the page says so.
import { html, useEffect, useState } from '../lib/html.js';
import { day, number } from '../lib/format.js';
import { navigate } from '../lib/router.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';
import { Sparkline } from '../components/charts.js';

const PERIODS = [
  { value: 'D7', name: '7 days' },
  { value: 'D30', name: '30 days' },
  { value: 'D90', name: '90 days' },
];
export const DEFAULT_PERIOD = 'D30';
const SOURCES = { mailsec: 'mail security (same day)', mailplatform: 'the mail platform’s report (2–3 days late)' };

function PeriodSwitch({ period }) {
  return html`<fieldset class="segmented">
    <legend class="visually-hidden">Period</legend>
    ${PERIODS.map((p) => html`<label key=${p.value}>
      <input type="radio" name="period" value=${p.value} checked=${p.value === period}
        onChange=${() => navigate('/m/engagement', p.value === DEFAULT_PERIOD ? null : { period: p.value }, { replace: true })} />
      <span>${p.name}</span></label>`)}
  </fieldset>`;
}

// --- Photos ----------------------------------------------------------------------------------
// The directory is asked once whether it can answer at all (the first user's photo): a 200 or a
// 404 says it can, and the other photos are then loaded by <img> (the first answer is in the
// browser's cache); 503 (not configured), 403 (switched off) or 502 say it cannot, and no other
// photo is asked for. Without a mail source (configured: false) no photo is asked for.
const photoUrl = (userId) => `/api/mobile/engagement/user/${encodeURIComponent(userId)}/photo`;
let directory = null;
function probeDirectory(userId) {
  if (!directory) {
    directory = fetch(photoUrl(userId), { credentials: 'same-origin' })
      .then((r) => ({ answers: r.status === 200 || r.status === 404, first: userId, found: r.status === 200 }))
      .catch(() => ({ answers: false }));
  }
  return directory;
}

function initials(u) {
  const words = (u.name || u.email || '?').replace(/@.*/, '').split(/[\s._-]+/).filter(Boolean);
  return (words.length > 1 ? words[0][0] + words[words.length - 1][0] : (words[0] || '?').slice(0, 2)).toUpperCase();
}

function Avatar({ user, photos }) {
  const [src, setSrc] = useState(null);
  useEffect(() => {
    if (!photos) return undefined;
    let live = true;
    probeDirectory(user.userId).then((d) => {
      if (live && d.answers && (d.first !== user.userId || d.found)) setSrc(photoUrl(user.userId));
    });
    return () => { live = false; };
  }, [user.userId, photos]);
  if (src) return html`<img class="avatar" src=${src} alt="" loading="lazy" onError=${() => setSrc(null)} />`;
  return html`<span class="avatar initials" aria-hidden="true">${initials(user)}</span>`;
}

// --- Figures ---------------------------------------------------------------------------------

function Summary({ s }) {
  const figures = [
    { key: 'activeUsers', name: 'Active users', value: number(s.activeUsers) },
    { key: 'totalPlatformHours', name: 'Mail hours (estimate)', value: number(s.totalPlatformHours, 1) },
    { key: 'totalPsaHours', name: 'PSA hours', value: number(s.totalPsaHours, 1) },
    { key: 'hoursPerActiveUser', name: 'Hours per active user', value: number(s.hoursPerActiveUser, 1) },
  ];
  return html`<div class="grid kpis quad" data-testid="summary">
    ${figures.map((f) => html`<div class="card kpi" key=${f.key} data-kpi=${f.key}>
      <div class="label">${f.name}</div><div class="value">${f.value}</div></div>`)}
  </div>`;
}

const SERIES = [
  { key: 'sent', name: 'E-mails sent', sum: true },
  { key: 'received', name: 'E-mails received', sum: true },
  { key: 'platformHours', name: 'Mail hours', sum: true, digits: 1 },
  { key: 'psaHours', name: 'PSA hours', sum: true, digits: 1 },
  { key: 'activeUsers', name: 'Active users', sum: false },
];

function Trend({ points }) {
  if (!points.length) return html`<${Empty}>No days in this period.<//>`;
  const first = day(points[0].date);
  const last = day(points[points.length - 1].date);
  return html`<div class="grid sparks" data-testid="trend">
    ${SERIES.map((s) => {
      const values = points.map((p) => Number(p[s.key]) || 0);
      const figure = s.sum ? values.reduce((a, b) => a + b, 0) : Math.max(0, ...values);
      return html`<div class="card spark" key=${s.key} data-series=${s.key}>
        <span class="label">${s.name}</span>
        <span class="value">${number(figure, s.digits || 0)}<span class="muted">${s.sum ? ' in all' : ' most in a day'}</span></span>
        <${Sparkline} label=${`${s.name} per UTC day, ${first} to ${last}`} values=${values} />
      </div>`;
    })}
  </div>`;
}

function Users({ data, photos }) {
  if (!data.users.length) return html`<${Empty}>Nobody sent or received mail or logged PSA time in this period.<//>`;
  return html`<div>
    ${data.truncated ? html`<p class="note">The ${number(data.count)} most engaged of ${number(data.total)} users.</p>` : null}
    <ul class="list card" aria-label="Users" data-testid="users">
      ${data.users.map((u) => html`<li key=${u.userId} data-user=${u.userId}>
        <div class="person">
          <${Avatar} user=${u} photos=${photos} />
          <div class="who-text">
            <div class="title">${u.name || u.email}</div>
            ${u.name ? html`<div class="muted email">${u.email}</div>` : null}
            <div class="meta"><span>${number(u.sent)} sent</span><span>${number(u.received)} received</span>
              <span>${number(u.platformHours, 1)} h mail</span><span>${number(u.psaHours, 1)} h PSA</span></div>
          </div>
          <div class="total"><span class="value">${number(u.totalHours, 1)}</span><span class="muted"> h</span></div>
        </div>
      </li>`)}
    </ul>
  </div>`;
}

function Section({ id, title, note, resource, render }) {
  return html`<section aria-labelledby=${id}>
    <div class="page-head"><h2 id=${id}>${title}</h2>${note ? html`<span class="note">${note}</span>` : null}</div>
    ${resource.error && resource.data ? html`<${ErrorBanner} error=${resource.error} onRetry=${resource.reload} />` : null}
    ${resource.data ? render(resource.data) : html`<${Pending} resource=${resource} label=${title.toLowerCase()} />`}
  </section>`;
}

export function MobileEngagement({ query }) {
  const period = PERIODS.some((p) => p.value === query.get('period')) ? query.get('period') : DEFAULT_PERIOD;
  const summary = useResource(`/api/mobile/engagement/summary?period=${period}`);
  const trend = useResource(`/api/mobile/engagement/trend?period=${period}`);
  const users = useResource(`/api/mobile/engagement/users?period=${period}`);
  const configured = [summary, trend, users].map((r) => r.data?.configured).find((c) => c !== undefined);
  const points = trend.data?.points || [];
  const lastDay = points.length ? points[points.length - 1].date : null;
  const sources = (summary.data?.source || []).map((s) => SOURCES[s] || s);
  return html`<div class="stack">
    <div class="page-head">
      <h1>Engagement</h1>
      <span class="note">days are UTC dates${lastDay ? `; the last is ${day(lastDay)} (UTC)` : ''}</span>
    </div>
    <${PeriodSwitch} period=${period} />
    ${configured === false ? html`<div class="banner warn" role="status" data-testid="not-configured">
        <div><strong>No mail source is connected</strong> (mail security or Microsoft 365). The e-mail figures are
        only what was stored before, PSA hours are counted as usual, and no photo is shown.</div></div>` : null}
    <${Section} id="summary-h" title="Summary" resource=${summary}
      note=${sources.length ? `e-mails from ${sources.join(' and ')}; mail hours estimated from them` : 'no e-mail figures in this period'}
      render=${(s) => html`<${Summary} s=${s} />`} />
    <${Section} id="trend-h" title="Per day" resource=${trend} note="UTC days, oldest to newest"
      render=${(t) => html`<${Trend} points=${t.points} />`} />
    <${Section} id="users-h" title="Users" resource=${users} note="most hours first"
      render=${(u) => html`<${Users} data=${u} photos=${u.configured === true} />`} />
  </div>`;
}
