// Preferences (issue 32, item 5): the session user's theme (PUT /api/me/theme), time zone
// (GET /api/me/timezones, PUT /api/me/timezone), which events reach which of their channels
// (GET/PUT /api/me/notification-subscriptions) and their personal channels (./preferences-channels.js);
// an administrator's own name too (PATCH /api/settings/profile).
// Every change is saved at once by its route and applied to the page as soon as it is made: the
// theme before the answer (and back if the route refuses it), the zone through onMeChange, so that
// every date the UI shows from then on is in it.
import { html, useEffect, useResetWith, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { applyTheme } from '../lib/session.js';
import { dateTime, timeZone } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { Combobox } from '../components/combobox.js';
import { Empty, ErrorBanner, FieldError, Pending } from '../components/messages.js';
import { TextField, useAction } from '../components/form.js';
import { PersonalChannels } from './preferences-channels.js';

const THEME_CHOICES = [
  { value: 'light', name: 'Light' },
  { value: 'dark', name: 'Dark' },
  { value: 'system', name: 'System' },
];

// The device's own scheme, followed while it changes (what "system" means right now).
function useDeviceScheme() {
  const query = typeof window.matchMedia === 'function' ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  const [dark, setDark] = useState(query ? query.matches : false);
  useEffect(() => {
    if (!query) return undefined;
    const changed = (e) => setDark(e.matches);
    query.addEventListener('change', changed);
    return () => query.removeEventListener('change', changed);
  }, []);
  return dark ? 'dark' : 'light';
}

function Theme({ me, onMeChange }) {
  const [chosen, setChosen] = useState(me.theme || 'system');
  const [state, setState] = useState({ busy: false, error: null, saved: false });
  const device = useDeviceScheme();

  const choose = async (theme) => {
    const before = chosen;
    setChosen(theme);
    applyTheme(theme); // at once; boot.js paints the next load in it from localStorage
    setState({ busy: true, error: null, saved: false });
    try {
      const saved = await api.put('/api/me/theme', { theme });
      setState({ busy: false, error: null, saved: true });
      onMeChange({ ...me, theme: saved.theme });
    } catch (error) {
      setChosen(before);
      applyTheme(before);
      setState({ busy: false, error, saved: false });
    }
  };

  return html`<section class="card" aria-labelledby="theme-h">
    <header><h2 id="theme-h">Theme</h2><span class="note">this device paints the next page in it from the start</span></header>
    <fieldset class="chips" aria-describedby=${state.error ? 'theme-error' : null}>
      <legend class="visually-hidden">Theme</legend>
      ${THEME_CHOICES.map((t) => html`<label class="chip" key=${t.value}>
        <input type="radio" name="theme" value=${t.value} checked=${chosen === t.value}
          onChange=${() => choose(t.value)} />
        ${t.name}${t.value === 'system' ? html` <span class="muted">(this device: ${device})</span>` : null}
      </label>`)}
    </fieldset>
    <div class="field"><${FieldError} id="theme-error" message=${state.error ? state.error.fields.theme || state.error.message : null} /></div>
    <p class="muted" role="status">${state.busy ? 'Saving…' : state.saved ? `Saved: ${chosen}.` : ''}</p>
  </section>`;
}

// The zone's offset now, "UTC+05:45" (Intl's own words; "GMT" becomes "UTC").
function offsetOf(zone, at) {
  try {
    const part = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
      .formatToParts(at).find((p) => p.type === 'timeZoneName');
    return part ? part.value.replace(/^GMT$/, 'UTC+00:00').replace(/^GMT/, 'UTC') : '';
  } catch {
    return '';
  }
}

// The time now, refreshed at each new minute.
function useMinute() {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    let timer;
    const tick = () => {
      setNow(new Date());
      timer = setTimeout(tick, 60000 - (Date.now() % 60000) + 50);
    };
    timer = setTimeout(tick, 60000 - (Date.now() % 60000) + 50);
    return () => clearTimeout(timer);
  }, []);
  return now;
}

function TimeZone({ me, onMeChange }) {
  const zones = useResource('/api/me/timezones');
  const [text, setText] = useState(me.timezone || 'UTC');
  const [state, setState] = useState({ busy: false, error: null, saved: null });
  const now = useMinute();
  const current = me.timezone || 'UTC';

  const save = async (e) => {
    e.preventDefault();
    setState({ busy: true, error: null, saved: null });
    try {
      const saved = await api.put('/api/me/timezone', { timezone: text.trim() });
      onMeChange({ ...me, timezone: saved.timezone });
      setText(saved.timezone);
      setState({ busy: false, error: null, saved: saved.timezone });
    } catch (error) {
      setState({ busy: false, error, saved: null });
    }
  };

  const fieldError = state.error && state.error.status === 400 ? state.error.fields.timezone || state.error.message : null;
  const describedBy = `tz-hint${fieldError ? ' tz-error' : ''}`;
  return html`<section class="card" aria-labelledby="tz-h">
    <header><h2 id="tz-h">Time zone</h2></header>
    <dl class="facts" data-testid="zone-now">
      <div><dt>Current zone</dt><dd><strong>${current}</strong> <span class="muted">${offsetOf(timeZone(), now)}</span></dd></div>
      <div><dt>Local time there</dt><dd><time datetime=${now.toISOString()}>${dateTime(now.toISOString())}</time></dd></div>
    </dl>
    ${state.error && state.error.status !== 400 ? html`<${ErrorBanner} error=${state.error} onRetry=${() => save(new Event('submit'))} />` : null}
    <form class="stack" onSubmit=${save} noValidate>
      <div class="field">
        <label for="tz-input">Time zone</label>
        ${zones.data
          ? html`<${Combobox} id="tz-input" options=${zones.data.timezones} value=${text} onChange=${setText}
              describedBy=${describedBy} invalid=${!!fieldError} noun="zones" />`
          : html`<${Pending} resource=${zones} label="time zones" lines=${1} />`}
        <div class="hint" id="tz-hint">Type a city or region (Berlin, New York); ↓ and Enter choose. Every date,
          time and "today" of the console follows this zone. The workers' hours, engagement days and revenue
          months stay in UTC, as the routes keep them, and their pages say so.</div>
        <${FieldError} id="tz-error" message=${fieldError} />
      </div>
      <div class="row">
        <button class="primary" type="submit" disabled=${state.busy || !zones.data}>${state.busy ? 'Saving…' : 'Save time zone'}</button>
        <span class="muted" role="status">${state.saved ? `Saved: ${state.saved}.` : ''}</span>
      </div>
    </form>
  </section>`;
}

// One cell of the matrix: a checkbox saved by its own PUT; a refusal puts it back and says why.
function Cell({ eventKey, type, enabled }) {
  const [value, setValue] = useState(enabled);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  useResetWith(() => setValue(enabled), [enabled]);
  const errorId = `sub-${eventKey}-${type}-error`;

  const toggle = async (e) => {
    const next = e.currentTarget.checked;
    setValue(next);
    setError(null);
    setBusy(true);
    try {
      const cell = await api.put('/api/me/notification-subscriptions', { event_key: eventKey, channel_type: type, enabled: next });
      setValue(cell.enabled);
    } catch (err) {
      setValue(!next);
      setError(err.status === 0 ? err.problem.detail : `Not saved: ${err.message}`);
    } finally {
      setBusy(false);
    }
  };

  return html`<td class="cell" data-label=${type}>
    <input type="checkbox" checked=${value} aria-label=${`${eventKey} by ${type}`} aria-busy=${busy ? 'true' : null}
      aria-invalid=${error ? 'true' : null} aria-describedby=${error ? errorId : null} onChange=${toggle} />
    ${error ? html`<div class="field-error" id=${errorId} role="alert">${error}</div>` : null}
  </td>`;
}

// The event keys (rows) × channel types (columns); a missing row is "on" (the route says so).
function Matrix({ channelTypesSet }) {
  const subs = useResource('/api/me/notification-subscriptions');
  const m = subs.data;
  return html`<section class="card" aria-labelledby="matrix-h">
    <header><h2 id="matrix-h">Notifications</h2><span class="note">which events reach each of your personal channels; each change is saved at once</span></header>
    ${!m ? html`<${Pending} resource=${subs} label="notification subscriptions" />`
      : !m.eventKeys.length ? html`<${Empty}>No event key is active yet: an administrator adds them (notify event keys).<//>`
      : html`<table class="matrix" data-testid="matrix">
          <caption class="visually-hidden">Events by channel type: checked sends the event to your channel of that type</caption>
          <thead><tr><th scope="col">Event</th>${m.channelTypes.map((t) => html`<th scope="col" class="cell" key=${t}>
            <span class="type-name">${t}</span>${channelTypesSet && !channelTypesSet.has(t) ? html`<span class="muted small">no channel</span>` : null}
          </th>`)}</tr></thead>
          <tbody>${m.eventKeys.map((k) => html`<tr key=${k}>
            <th scope="row"><code>${k}</code></th>
            ${m.channelTypes.map((t) => html`<${Cell} key=${t} eventKey=${k} type=${t} enabled=${m.matrix[k]?.[t] !== false} />`)}
          </tr>`)}</tbody>
        </table>
        <p class="muted small">A type without a channel sends nothing whatever its column says; global channels are the administrator's.</p>`}
  </section>`;
}

// An administrator's own name (PATCH /api/settings/profile {name}: 1 to 200 characters, trimmed →
// the user as /api/auth/me gives it), as the top bar shows it.
function Profile({ me, onMeChange }) {
  const [name, setName] = useState(me.name || '');
  const act = useAction();
  const save = (e) => {
    e.preventDefault();
    act.run('save', () => api.patch('/api/settings/profile', { name }), (user) => {
      onMeChange(user);
      return `Saved: ${user.name}.`;
    });
  };
  return html`<section class="card" aria-labelledby="profile-h">
    <header><h2 id="profile-h">Your name</h2><span class="note">as the console shows it (administrators)</span></header>
    <form class="stack" onSubmit=${save} noValidate>
      <${TextField} id="profile-name" label="Name" value=${name} onInput=${setName} error=${act.fields.name} maxLength="200" />
      <div class="row"><button type="submit" class="primary" disabled=${!!act.busy}>Save the name</button>
        <span class="muted" role="status">${act.done || ''}</span></div>
      ${act.error && !act.fields.name ? html`<${ErrorBanner} error=${act.error} />` : null}
    </form>
  </section>`;
}

export function Preferences({ me, onMeChange }) {
  // the types the user has a channel of, for the matrix's column heads (null until known)
  const [types, setTypes] = useState(null);
  return html`<div class="stack preferences">
    <div class="page-head"><h1>Preferences</h1><span class="note">${me.email}</span></div>
    <div class="grid two">
      <${Theme} me=${me} onMeChange=${onMeChange} />
      <${TimeZone} me=${me} onMeChange=${onMeChange} />
    </div>
    ${me.isAdmin ? html`<${Profile} me=${me} onMeChange=${onMeChange} />` : null}
    <${Matrix} channelTypesSet=${types} />
    <${PersonalChannels} onChannels=${(list) => setTypes(new Set(list.map((c) => c.channel_type)))} />
  </div>`;
}
