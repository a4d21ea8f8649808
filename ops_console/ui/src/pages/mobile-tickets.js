// The mobile ticket list (GET /api/mobile/tickets: {items, hasMore, nextCursor, limit}), with the
// spec's filters (status, priority, queue, mine, search) kept in the fragment's query, so that a
// reload or a bookmark opens the same list, and endless scrolling that follows nextCursor
// (components/endless.js). The filters' choices and the queues' names are the PSA's picklists as
// GET /api/analyzer/tickets/filter-options gives them ({statuses, priorities, queues: [{value,
// label}]}); the labels of a ticket are the route's own (statusLabel, priorityLabel, companyName).
import { html, useEffect, useMemo, useRef, useResetWith, useState } from '../lib/html.js';
import { withQuery } from '../lib/api.js';
import { dateTime } from '../lib/format.js';
import { navigate } from '../lib/router.js';
import { useResource } from '../components/resource.js';
import { ErrorBanner } from '../components/messages.js';
import { EndlessList, useCursorList } from '../components/endless.js';

// What the route applies when no status is given (the spec's open tickets).
export const DEFAULT_STATUSES = [1, 8, 7];
const SEARCH_DELAY_MS = 400;

function ints(values) {
  return values.map(Number).filter((n) => Number.isInteger(n) && n >= 0);
}

export function readFilters(query) {
  return {
    status: ints(query.getAll('status')),
    priority: ints(query.getAll('priority')),
    queue: query.get('queue') || '',
    mine: query.get('mine') === 'true',
    search: query.get('search') || '',
  };
}

function sameSet(a, b) {
  return a.length === b.length && a.every((x) => b.includes(x));
}

// The filters into the fragment (replacing the entry: Back leaves the list rather than stepping
// through its filters). The default statuses are left out, as the route applies them anyway.
function writeFilters(f) {
  const q = new URLSearchParams();
  if (f.status.length && !sameSet(f.status, DEFAULT_STATUSES)) f.status.forEach((s) => q.append('status', String(s)));
  f.priority.forEach((p) => q.append('priority', String(p)));
  if (f.queue) q.set('queue', f.queue);
  if (f.mine) q.set('mine', 'true');
  if (f.search) q.set('search', f.search);
  navigate('/m/tickets', q, { replace: true });
}

function toggle(list, value, on) {
  return on ? [...list.filter((x) => x !== value), value] : list.filter((x) => x !== value);
}

function Chips({ legend, name, options, chosen, onChange, hint }) {
  return html`<fieldset class="chips">
    <legend>${legend}</legend>
    ${options.map((o) => html`<label class="chip" key=${o.value}>
      <input type="checkbox" name=${name} value=${o.value} checked=${chosen.includes(o.value)}
        onChange=${(e) => onChange(toggle(chosen, o.value, e.currentTarget.checked))} />${o.label}</label>`)}
    ${hint ? html`<span class="hint">${hint}</span>` : null}
  </fieldset>`;
}

function summary(f, options) {
  const statuses = f.status.length ? f.status : DEFAULT_STATUSES;
  const parts = [
    sameSet(statuses, DEFAULT_STATUSES) ? 'open' : `${statuses.length} ${statuses.length === 1 ? 'status' : 'statuses'}`,
    f.priority.length ? `${f.priority.length} ${f.priority.length === 1 ? 'priority' : 'priorities'}` : 'any priority',
    f.queue ? (options.queues.get(Number(f.queue)) || `queue ${f.queue}`) : 'all queues',
  ];
  if (f.mine) parts.push('mine');
  return parts.join(' · ');
}

function Filters({ filters, options, optionsError, onRetry }) {
  const [wide] = useState(() => window.matchMedia?.('(min-width: 700px)').matches ?? true);
  const statuses = filters.status.length ? filters.status : DEFAULT_STATUSES;
  const set = (patch) => writeFilters({ ...filters, ...patch });
  return html`<details class="filters card" open=${wide}>
    <summary>Filters <span class="muted">${summary(filters, options)}</span></summary>
    ${optionsError ? html`<${ErrorBanner} error=${optionsError} onRetry=${onRetry} what="The filters' choices" />` : null}
    <div class="stack">
      <${Chips} legend="Status" name="status" options=${options.statuses} chosen=${statuses}
        onChange=${(status) => set({ status })}
        hint=${filters.status.length ? null : 'The route’s default: the open statuses.'} />
      <${Chips} legend="Priority" name="priority" options=${options.priorities} chosen=${filters.priority}
        onChange=${(priority) => set({ priority })} hint=${filters.priority.length ? null : 'None chosen: every priority.'} />
      <div class="row filter-row">
        <div class="field">
          <label for="queue">Queue</label>
          <select id="queue" value=${filters.queue} onChange=${(e) => set({ queue: e.currentTarget.value })}>
            <option value="">All queues</option>
            ${[...options.queues].map(([value, label]) => html`<option key=${value} value=${String(value)}>${label}</option>`)}
          </select>
        </div>
        <label class="chip toggle"><input type="checkbox" checked=${filters.mine}
          onChange=${(e) => set({ mine: e.currentTarget.checked })} />Only mine</label>
      </div>
    </div>
  </details>`;
}

// The search box: applied after a pause in typing, or at once with Enter.
function Search({ filters }) {
  const [text, setText] = useState(filters.search);
  const timer = useRef(null);
  useResetWith(() => setText(filters.search), [filters.search]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const apply = (value) => {
    clearTimeout(timer.current);
    if (value.trim() !== filters.search) writeFilters({ ...filters, search: value.trim() });
  };
  return html`<form role="search" class="search" onSubmit=${(e) => { e.preventDefault(); apply(text); }}>
    <label for="ticket-search" class="visually-hidden">Search tickets by title or number</label>
    <input id="ticket-search" type="search" placeholder="Search title or number" maxLength="200" value=${text}
      onInput=${(e) => {
        const value = e.currentTarget.value;
        setText(value);
        clearTimeout(timer.current);
        timer.current = setTimeout(() => apply(value), SEARCH_DELAY_MS);
      }} />
  </form>`;
}

function priorityTone(label) {
  if (/critical/i.test(label || '')) return 'down';
  if (/high/i.test(label || '')) return 'warn';
  return 'neutral';
}

function Ticket({ t, queues }) {
  return html`<div class="ticket" data-ticket=${t.id}>
    <div class="row tight">
      <span class="mono">${t.ticketNumber}</span>
      <span class=${`badge ${priorityTone(t.priorityLabel)}`}>${t.priorityLabel || `priority ${t.priority}`}</span>
      ${t.slaBreached ? html`<span class="badge down">SLA breached</span>` : null}
    </div>
    <div class="title">${t.title}</div>
    <div class="meta">
      <span>${t.companyName || 'No company'}</span>
      <span>${t.statusLabel || `status ${t.status}`}</span>
      ${t.queueId !== null && t.queueId !== undefined ? html`<span>${queues.get(t.queueId) || `queue ${t.queueId}`}</span>` : null}
    </div>
    <div class="meta">
      <span>Last activity <time class="last-activity" datetime=${t.lastActivityDate}>${dateTime(t.lastActivityDate)}</time></span>
      ${t.dueDateTime ? html`<span class=${t.slaBreached ? 'error-text' : ''}>Due <time
        datetime=${t.dueDateTime}>${dateTime(t.dueDateTime)}</time></span>` : null}
    </div>
  </div>`;
}

export function MobileTickets({ query }) {
  const filters = readFilters(query);
  const choices = useResource('/api/analyzer/tickets/filter-options');
  const options = useMemo(() => ({
    statuses: choices.data?.statuses || [],
    priorities: choices.data?.priorities || [],
    queues: new Map((choices.data?.queues || []).map((q) => [q.value, q.label])),
  }), [choices.data]);
  const path = withQuery('/api/mobile/tickets', {
    status: filters.status, priority: filters.priority, queue: filters.queue, mine: filters.mine ? 'true' : '', search: filters.search,
  });
  const list = useCursorList(path);
  return html`<div class="stack">
    <h1>Tickets</h1>
    <${Search} filters=${filters} />
    <${Filters} filters=${filters} options=${options} optionsError=${choices.data ? null : choices.error} onRetry=${choices.reload} />
    <${EndlessList} list=${list} noun="tickets" label="Tickets" itemKey=${(t) => t.id}
      empty=${filters.search || filters.priority.length || filters.queue || filters.mine || filters.status.length
        ? 'No ticket matches these filters.' : 'No open ticket.'}
      item=${(t) => html`<${Ticket} t=${t} queues=${options.queues} />`} />
  </div>`;
}
