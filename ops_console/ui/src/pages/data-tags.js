// Tags (ops_console/README.md, "Tags"): the PSA's catalogue (GET /api/tags: groups and their tags),
// then one record's tags. Companies, configuration items and contacts carry the console's own tags
// (GET /api/{companies|configuration-items|contacts}/{id}/tags), added (PUT …/{tagId}: 201 added,
// 204 carried already) or removed after a confirmation (DELETE …/{tagId}); a ticket's tags are the
// PSA's associations as the sync copies them (GET /api/tickets/{id}/tags), shown read-only. The
// record is in the fragment's query (#/data/tags?kind=company&id=174): a company is chosen from the
// list of companies, a configuration item, a contact or a ticket by its PSA id (the console lists
// none of them here). An id that is not digits is said under the input before any request; the
// route's 404 (no such record) or 400 (not a positive id) is said there too.
import { html, useMemo, useResetWith, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime } from '../lib/format.js';
import { navigate } from '../lib/router.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, FieldError, Pending } from '../components/messages.js';
import { Confirm } from '../components/confirm.js';
import { describedBy, useAction } from '../components/form.js';

const sentence = (s) => `${s.charAt(0).toUpperCase()}${s.slice(1)}${/[.!?]$/.test(s) ? '' : '.'}`;

const KINDS = [
  { value: 'company', name: 'Company', noun: 'company', path: 'companies' },
  { value: 'configuration-item', name: 'Configuration item', noun: 'configuration item', path: 'configuration-items' },
  { value: 'contact', name: 'Contact', noun: 'contact', path: 'contacts' },
  { value: 'ticket', name: 'Ticket', noun: 'ticket', path: 'tickets', readOnly: true },
];

function Catalogue({ groups }) {
  if (!groups.data) return html`<${Pending} resource=${groups} label="the tag catalogue" lines=${2} />`;
  if (!groups.data.length) return html`<${Empty}>The PSA has no tag yet (the sync brings its tag groups and tags).<//>`;
  return html`<details class="catalogue"><summary>${`The catalogue: ${groups.data.length} ${groups.data.length === 1 ? 'group' : 'groups'}, ${groups.data.reduce((n, g) => n + g.tags.length, 0)} tags`}</summary>
    <dl class="pairs">${groups.data.map((g) => html`<div key=${g.id ?? 'none'}>
      <dt>${g.id === null ? 'Without a group' : g.name}${g.is_active === false ? html` <span class="muted">(inactive)</span>` : null}</dt>
      <dd>${g.tags.map((t) => html`<span class=${`badge ${t.is_active ? 'neutral' : 'unknown'}`} key=${t.id}>${t.label}</span> `)}</dd>
    </div>`)}</dl>
  </details>`;
}

function Chooser({ kind, id, companies, recordError }) {
  const [text, setText] = useState(id);
  const [typed, setTyped] = useState(null); // what is wrong with the typed id, before any request
  useResetWith(() => { setText(id); setTyped(null); }, [id, kind.value]);
  const go = (k, i) => navigate('/data/tags', { kind: k, ...(i ? { id: i } : {}) }, { replace: true });
  const submit = (e) => {
    e.preventDefault();
    const t = text.trim();
    if (t && !/^\d+$/.test(t)) {
      setTyped(`A ${kind.noun} id is the PSA's number, digits only (“${t}” is not).`);
      return;
    }
    setTyped(null);
    go(kind.value, t);
  };
  const message = typed || recordError;
  return html`<form class="row filter-row" onSubmit=${submit} noValidate>
    <div class="field">
      <label for="tag-kind">Record</label>
      <select id="tag-kind" value=${kind.value} onChange=${(e) => go(e.currentTarget.value, '')}>
        ${KINDS.map((k) => html`<option key=${k.value} value=${k.value}>${k.name}</option>`)}
      </select>
    </div>
    ${kind.value === 'company' ? html`<div class="field">
        <label for="tag-company">Company</label>
        ${companies.data ? html`<select id="tag-company" value=${id} onChange=${(e) => go('company', e.currentTarget.value)}
            aria-invalid=${message ? 'true' : null} aria-describedby=${message ? 'tag-record-error' : null}>
            <option value="">Choose a company</option>
            ${companies.data.map((c) => html`<option key=${c.id} value=${String(c.id)}>${c.company_name}</option>`)}
          </select>` : html`<${Pending} resource=${companies} label="companies" lines=${1} />`}
        <${FieldError} id="tag-record-error" message=${message} />
      </div>`
      : html`<div class="field">
        <label for="tag-id">${kind.name} id <span class="muted">(the PSA's)</span></label>
        <input id="tag-id" type="text" inputmode="numeric" value=${text} autocomplete="off" onInput=${(e) => setText(e.currentTarget.value)}
          aria-invalid=${message ? 'true' : null} aria-describedby=${message ? 'tag-record-error' : null} />
        <${FieldError} id="tag-record-error" message=${message} />
      </div>
      <button type="submit">Show its tags</button>`}
  </form>`;
}

// A ticket's tags: the PSA's associations, read here and never written (no route changes them).
function TicketTags({ id, groups, tags }) {
  const groupName = useMemo(() => new Map((groups.data || []).map((g) => [g.id, g.name])), [groups.data]);
  if (tags.error && tags.data === undefined && [400, 404].includes(tags.error.status)) return null; // said under the input
  if (tags.data === undefined) return html`<${Pending} resource=${tags} label="the ticket's tags" />`;
  return html`<div class="stack" data-testid="record-tags">
    <p class="note" id="ticket-tags-note">Read-only: a ticket's tags are set in the PSA and copied here by the sync, also for a ticket older than the console's copy.</p>
    ${tags.data.length ? html`<table class="stack-on-phone" aria-describedby="ticket-tags-note">
      <caption class="visually-hidden">${`Tags of ticket ${id}`}</caption>
      <thead><tr><th scope="col">Tag</th><th scope="col">Group</th><th scope="col">Source</th></tr></thead>
      <tbody>${tags.data.map((t) => html`<tr key=${t.id} data-tag=${t.id}>
        <th scope="row">${t.label}</th>
        <td data-label="Group">${t.tag_group_id === null ? '—' : groupName.get(t.tag_group_id) || `group ${t.tag_group_id}`}</td>
        <td data-label="Source">${t.source === 'psa' ? 'the PSA' : t.source}</td>
      </tr>`)}</tbody>
    </table>` : html`<${Empty}>The PSA records no tag on ticket ${id}. (The console cannot tell an unknown ticket from an untagged one: the PSA's associations are listed whether or not its copy holds the ticket.)<//>`}
  </div>`;
}

function RecordTags({ kind, id, groups, tags }) {
  const base = tagsPath(kind, id);
  const act = useAction();
  const [chosen, setChosen] = useState('');
  const [asked, setAsked] = useState(null);
  const groupName = useMemo(() => new Map((groups.data || []).map((g) => [g.id, g.name])), [groups.data]);
  const carried = new Set((tags.data || []).map((t) => t.id));

  const add = (e) => {
    e.preventDefault();
    const tag = (groups.data || []).flatMap((g) => g.tags).find((t) => String(t.id) === chosen);
    act.run('add', () => api.put(`${base}/${chosen}`), () => {
      tags.reload();
      setChosen('');
      return `${tag ? tag.label : `Tag ${chosen}`} added.`;
    });
  };
  const remove = () => {
    const tag = asked;
    setAsked(null);
    act.run('remove', () => api.del(`${base}/${tag.id}`), () => {
      tags.reload();
      return `${tag.label} removed.`;
    });
  };

  if (tags.error && tags.data === undefined && [400, 404].includes(tags.error.status)) return null; // said under the chooser
  if (tags.data === undefined) return html`<${Pending} resource=${tags} label=${`the ${kind.noun}'s tags`} />`;
  const addError = act.error && act.error.status !== 400 ? act.error : null;
  return html`<div class="stack" data-testid="record-tags">
    ${tags.data.length ? html`<table class="stack-on-phone">
      <caption class="visually-hidden">${`Tags of ${kind.noun} ${id}`}</caption>
      <thead><tr><th scope="col">Tag</th><th scope="col">Group</th><th scope="col">Added by</th><th scope="col">Added</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${tags.data.map((t) => html`<tr key=${t.id} data-tag=${t.id}>
        <th scope="row">${t.label}</th>
        <td data-label="Group">${t.tag_group_id === null ? '—' : groupName.get(t.tag_group_id) || `group ${t.tag_group_id}`}</td>
        <td data-label="Added by">${t.added_by}</td>
        <td data-label="Added">${dateTime(t.added_at)}</td>
        <td><button type="button" class="danger" aria-label=${`Remove ${t.label}`} onClick=${() => setAsked(t)}>Remove</button></td>
      </tr>`)}</tbody>
    </table>` : html`<${Empty}>This ${kind.noun} carries no tag.<//>`}
    <form class="row filter-row" onSubmit=${add}>
      <div class="field">
        <label for="tag-add">Add a tag</label>
        <select id="tag-add" value=${chosen} onChange=${(e) => setChosen(e.currentTarget.value)}
          aria-describedby=${describedBy('tag-add', false, act.fields.tagId)}>
          <option value="">Choose a tag</option>
          ${(groups.data || []).map((g) => html`<optgroup key=${g.id ?? 'none'} label=${g.id === null ? 'Without a group' : g.name}>
            ${g.tags.filter((t) => t.is_active !== false && !carried.has(t.id)).map((t) => html`<option key=${t.id} value=${String(t.id)}>${t.label}</option>`)}
          </optgroup>`)}
        </select>
        <${FieldError} id="tag-add-error" message=${act.fields.tagId} />
      </div>
      <button type="submit" class="primary" disabled=${!chosen || !!act.busy}>${act.busy === 'add' ? 'Adding…' : 'Add'}</button>
    </form>
    <p role="status" class="small ok-text">${act.done || ''}</p>
    ${addError ? html`<${ErrorBanner} error=${addError} />` : null}
    <${Confirm} danger id="tag-remove" open=${!!asked} title=${asked ? `Remove ${asked.label}?` : ''} confirm="Remove it" cancel="Keep it"
      onConfirm=${remove} onCancel=${() => setAsked(null)}>
      <p>${asked ? `The ${kind.noun} stops carrying ${asked.label}; who added it and when is forgotten. The tag itself stays in the catalogue.` : ''}</p>
    <//>
  </div>`;
}

const tagsPath = (kind, id) => `/api/${kind.path}/${encodeURIComponent(id)}/tags`;

// The route's refusal of the record, said under its input: 404 (no such record), 400 (not an id).
function recordErrorOf(kind, id, tags) {
  if (!id || tags.data !== undefined || !tags.error) return null;
  if (tags.error.status === 404) return `${sentence(tags.error.problem.detail || `no ${kind.noun} ${id}`)} Check the id.`;
  if (tags.error.status === 400) return tags.error.fields.id ? `The ${kind.noun} id ${tags.error.fields.id.replace(/\.$/, '')}.` : sentence(tags.error.message);
  return null;
}

export function DataTags({ query }) {
  const kind = KINDS.find((k) => k.value === query.get('kind')) || KINDS[0];
  const id = /^\d+$/.test(query.get('id') || '') ? query.get('id') : '';
  const groups = useResource('/api/tags');
  const companies = useResource(kind.value === 'company' ? '/api/data/companies-list' : null);
  const company = kind.value === 'company' && companies.data?.find((c) => String(c.id) === id);
  const tags = useResource(id ? tagsPath(kind, id) : null);
  const recordError = recordErrorOf(kind, id, tags);
  return html`<div class="stack data-page">
    <div class="page-head"><h1>Tags</h1><span class="note">the console's own tags on companies, configuration items and contacts; a ticket's, from the PSA</span></div>
    <section class="card" aria-labelledby="tags-cat-h">
      <header><h2 id="tags-cat-h">Tag groups and tags</h2><span class="note">from the PSA</span></header>
      <${Catalogue} groups=${groups} />
    </section>
    <section class="card" aria-labelledby="tags-rec-h">
      <header><h2 id="tags-rec-h">${id ? `Tags of ${company ? company.company_name : `${kind.noun} ${id}`}` : 'Tags of a record'}</h2>
        ${kind.readOnly ? html`<span class="badge neutral">read-only</span>` : null}</header>
      <${Chooser} kind=${kind} id=${id} companies=${companies} recordError=${recordError} />
      ${!id ? html`<${Empty}>${kind.readOnly ? `Give a ${kind.noun}'s id to see its tags (the PSA's; read-only here).` : `Choose a ${kind.noun} to see and change its tags.`}<//>`
        : kind.readOnly ? html`<${TicketTags} key=${`${kind.value}-${id}`} id=${id} groups=${groups} tags=${tags} />`
        : html`<${RecordTags} key=${`${kind.value}-${id}`} kind=${kind} id=${id} groups=${groups} tags=${tags} />`}
    </section>
  </div>`;
}
