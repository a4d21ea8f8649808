// Which companies count (ops_console/README.md "Company scope": GET /api/admin/company-scope,
// PATCH /api/admin/company-scope/{companyId}; opt-out, so a company without a row is in scope) and
// what the kiosk wall and the mobile views show ("Display settings": GET/POST
// /api/admin/display-settings, six lists of ids). Taking a company out of scope asks for a
// confirmation that says what changes, with a note; bringing it back is at once. The settings'
// choices are the routes' lists: categories (GET /api/data/company-categories), companies (GET
// /api/data/companies-list) and the PSA's classifications (GET /api/sync/classifications; while the
// PSA cannot be asked, the ids are typed).
import { html, useEffect, useMemo, useResetWith, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, FieldError, Pending } from '../components/messages.js';
import { Confirm } from '../components/confirm.js';
import { StrayError, describedBy, useAction } from '../components/form.js';

function Scope() {
  const list = useResource('/api/admin/company-scope');
  const [items, setItems] = useState(null);
  const [filter, setFilter] = useState('');
  const [asked, setAsked] = useState(null);
  const [note, setNote] = useState('');
  const act = useAction();
  useEffect(() => { if (list.data) setItems(list.data.items); }, [list.data]);

  const save = (c, inScope, text) => act.run(String(c.company_id), () => api.patch(`/api/admin/company-scope/${c.company_id}`,
    { in_scope: inScope, ...(text ? { note: text } : {}) }), (saved) => {
    setItems((l) => l.map((x) => (x.company_id === saved.company_id ? saved : x)));
    setAsked(null);
    return `${saved.company_name} is ${saved.in_scope ? 'in scope' : 'out of scope'}.`;
  });
  const words = filter.trim().toLowerCase();
  const rows = (items || []).filter((c) => !words || c.company_name.toLowerCase().includes(words) || String(c.company_id) === words);
  const noteError = asked && act.fields.note;
  const out = (items || []).filter((c) => !c.in_scope).length;

  return html`<section class="card" aria-labelledby="scope-h">
    <header><h2 id="scope-h">Company scope</h2><span class="note">${items ? `${out} of ${items.length} out of scope; ` : ''}the dashboards, the mobile views and the morning summary leave out-of-scope companies' tickets out</span></header>
    <div class="field search">
      <label for="scope-filter">Find a company</label>
      <input id="scope-filter" type="search" value=${filter} onInput=${(e) => setFilter(e.currentTarget.value)} placeholder="Name or id" />
    </div>
    ${!items ? html`<${Pending} resource=${list} label="companies" />`
      : !items.length ? html`<${Empty}>The PSA's copy has no company yet.<//>`
      : !rows.length ? html`<${Empty}>No company matches “${filter.trim()}”.<//>`
      : html`<table class="stack-on-phone" data-testid="scope">
        <caption class="visually-hidden">Companies and their scope</caption>
        <thead><tr><th scope="col">Company</th><th scope="col">Scope</th><th scope="col">Note</th><th scope="col">Changed</th>
          <th scope="col"><span class="visually-hidden">Change</span></th></tr></thead>
        <tbody>${rows.map((c) => html`<tr key=${c.company_id} data-company=${c.company_id}>
          <th scope="row">${c.company_name} <span class="mono muted">${c.company_id}</span>${c.is_active ? null : html` <span class="badge neutral">inactive</span>`}</th>
          <td data-label="Scope"><span><span class=${`badge ${c.in_scope ? 'ok' : 'down'}`}>${c.in_scope ? 'in scope' : 'out of scope'}</span>${c.explicit ? null : html` <span class="muted small">(default)</span>`}</span></td>
          <td data-label="Note" class="wrap">${c.note || ''}</td>
          <td data-label="Changed">${c.updated_at ? html`<span>${dateTime(c.updated_at)} <span class="muted small">${c.updated_by}</span></span>` : ''}</td>
          <td>${c.in_scope
            ? html`<button type="button" class="danger" disabled=${!!act.busy} aria-label=${`Take out of scope: ${c.company_name}`}
                onClick=${() => { act.clear(); setNote(c.note || ''); setAsked(c); }}>Take out of scope</button>`
            : html`<button type="button" disabled=${!!act.busy} aria-label=${`Bring into scope: ${c.company_name}`}
                onClick=${() => save(c, true, c.note)}>Bring into scope</button>`}</td>
        </tr>`)}</tbody>
      </table>`}
    <p role="status" class="small ok-text">${act.done || ''}</p>
    ${act.error && !asked ? html`<${ErrorBanner} error=${act.error} />` : null}
    <${Confirm} danger id="scope-out" open=${!!asked} title=${asked ? `Take ${asked.company_name} out of scope?` : ''} confirm="Take it out" cancel="Keep it in"
      onConfirm=${() => save(asked, false, note.trim())} onCancel=${() => { setAsked(null); act.clear(); }}>
      <p>Its tickets stop counting in the dashboards, the mobile views and the morning summary; nothing is deleted, and bringing it back counts them again.</p>
      <div class="field">
        <label for="scope-note">Note <span class="muted">(optional)</span></label>
        <textarea id="scope-note" rows="2" maxlength="500" value=${note} onInput=${(e) => setNote(e.currentTarget.value)}
          aria-invalid=${noteError ? 'true' : null} aria-describedby=${describedBy('scope-note', false, noteError)}></textarea>
        <${FieldError} id="scope-note-error" message=${noteError} />
      </div>
      ${act.error && asked && !noteError ? html`<${ErrorBanner} error=${act.error} />` : null}
    <//>
  </section>`;
}

const LISTS = [
  { suffix: 'company_category_ids', name: 'Company categories', choices: 'categories', hint: 'Only companies of these categories are shown.' },
  { suffix: 'excluded_company_ids', name: 'Excluded companies', choices: 'companies', hint: 'These companies are never shown.' },
  { suffix: 'included_classification_ids', name: 'Included classifications', choices: 'classifications',
    hint: 'None chosen: no classification filter; otherwise only companies of these classifications.' },
];

// "3, 5 7" → [3, 5, 7]; what is not a number is sent as written, and the route names it.
function idsOf(text) {
  return text.split(/[\s,]+/).filter(Boolean).map((t) => (/^\d+$/.test(t) ? Number(t) : t));
}

function Checks({ id, legend, hint, options, chosen, onChange, error }) {
  const known = new Set(options.map((o) => o.id));
  const all = [...options, ...chosen.filter((c) => !known.has(c)).map((c) => ({ id: c, name: `id ${c} (not in the list)` }))];
  return html`<fieldset class="checks" aria-describedby=${describedBy(id, true, error)} aria-invalid=${error ? 'true' : null}>
    <legend>${legend}</legend>
    <div class="hint" id=${`${id}-hint`}>${hint}</div>
    <div class="check-list">${all.length ? all.map((o) => html`<label class="check" key=${o.id}>
      <input type="checkbox" checked=${chosen.includes(o.id)}
        onChange=${(e) => onChange(e.currentTarget.checked ? [...chosen, o.id] : chosen.filter((x) => x !== o.id))} />${o.name}</label>`)
      : html`<span class="muted small">Nothing to choose from.</span>`}</div>
    <${FieldError} id=${`${id}-error`} message=${error} />
  </fieldset>`;
}

function Display({ target, title, about, settings, choices, onSaved }) {
  const keyOf = (l) => `${target}_${l.suffix}`;
  const fromSettings = () => Object.fromEntries(LISTS.map((l) => [l.suffix, [...(settings[keyOf(l)] || [])]]));
  const [form, setForm] = useState(fromSettings);
  const [typed, setTyped] = useState(() => (settings[`${target}_included_classification_ids`] || []).join(', '));
  const act = useAction();
  useResetWith(() => {
    setForm(fromSettings());
    setTyped((settings[`${target}_included_classification_ids`] || []).join(', '));
  }, [settings]);
  const typing = !choices.classifications; // the PSA's picklist could not be read

  const save = (e) => {
    e.preventDefault();
    const body = Object.fromEntries(LISTS.map((l) => [keyOf(l), l.choices === 'classifications' && typing ? idsOf(typed) : form[l.suffix]]));
    act.run('save', () => api.post('/api/admin/display-settings', body), (all) => {
      onSaved(all);
      return `Saved ${title.toLowerCase()}.`;
    });
  };
  // an item's error ("kiosk_excluded_company_ids[2]") belongs to its list
  const errorOf = (l) => Object.entries(act.fields).filter(([f]) => f === keyOf(l) || f.startsWith(`${keyOf(l)}[`))
    .map(([f, m]) => (f === keyOf(l) ? m : `${f.slice(keyOf(l).length)}: ${m}`)).join('; ') || null;
  const known = Object.keys(act.fields).filter((f) => LISTS.some((l) => f === keyOf(l) || f.startsWith(`${keyOf(l)}[`)));
  return html`<form class="card stack" aria-labelledby=${`${target}-h`} onSubmit=${save} noValidate data-testid=${`display-${target}`}>
    <header><h3 id=${`${target}-h`}>${title}</h3><span class="note">${about}</span></header>
    ${LISTS.map((l) => (l.choices === 'classifications' && typing
      ? html`<div class="field" key=${l.suffix}>
          <label for=${`${target}-${l.suffix}`}>${l.name} <span class="muted">(ids)</span></label>
          <input id=${`${target}-${l.suffix}`} type="text" value=${typed} onInput=${(e) => setTyped(e.currentTarget.value)} inputmode="numeric"
            aria-invalid=${errorOf(l) ? 'true' : null} aria-describedby=${describedBy(`${target}-${l.suffix}`, true, errorOf(l))} />
          <div class="hint" id=${`${target}-${l.suffix}-hint`}>${l.hint} The PSA's classifications cannot be read now: type their ids, separated by commas.</div>
          <${FieldError} id=${`${target}-${l.suffix}-error`} message=${errorOf(l)} />
        </div>`
      : html`<${Checks} key=${l.suffix} id=${`${target}-${l.suffix}`} legend=${l.name} hint=${l.hint} options=${choices[l.choices] || []}
          chosen=${form[l.suffix]} error=${errorOf(l)} onChange=${(ids) => setForm((f) => ({ ...f, [l.suffix]: ids }))} />`))}
    <${StrayError} error=${act.error} known=${known} />
    <div class="row"><button type="submit" class="primary" disabled=${!!act.busy}>${act.busy ? 'Saving…' : `Save ${title.toLowerCase()}`}</button>
      <span role="status" class="small ok-text">${act.done || ''}</span></div>
  </form>`;
}

function DisplaySettings() {
  const settings = useResource('/api/admin/display-settings');
  const categories = useResource('/api/data/company-categories');
  const companies = useResource('/api/data/companies-list');
  const classifications = useResource('/api/sync/classifications');
  const [current, setCurrent] = useState(null);
  useEffect(() => { if (settings.data) setCurrent(settings.data); }, [settings.data]);
  const choices = useMemo(() => ({
    categories: (categories.data || []).map((c) => ({ id: c.id, name: c.is_active ? c.name : `${c.name} (inactive)` })),
    companies: (companies.data || []).map((c) => ({ id: c.id, name: c.company_name })),
    classifications: classifications.data ? classifications.data.map((c) => ({ id: c.id, name: c.label })) : null,
  }), [categories.data, companies.data, classifications.data]);
  const ready = current && categories.data && companies.data && (classifications.data || classifications.error);
  const failed = [settings, categories, companies].find((r) => r.error && r.data === undefined);
  return html`<section aria-labelledby="display-h">
    <div class="page-head"><h2 id="display-h">Display settings</h2><span class="note">which companies the kiosk wall and the mobile views show</span></div>
    ${failed ? html`<${ErrorBanner} error=${failed.error} onRetry=${failed.reload} />`
      : !ready ? html`<div class="card"><${Pending} resource=${settings} label="display settings" /></div>`
      : html`<div class="grid two">
          <${Display} target="kiosk" title="Kiosk wall" about="the wall display of the service desk" settings=${current} choices=${choices} onSaved=${setCurrent} />
          <${Display} target="mobile" title="Mobile views" about="the mobile interface's lists and figures" settings=${current} choices=${choices} onSaved=${setCurrent} />
        </div>`}
  </section>`;
}

export function AdminScope() {
  return html`<div class="stack admin-page">
    <div class="page-head"><h1>Scope and display</h1></div>
    <${Scope} />
    <${DisplaySettings} />
  </div>`;
}
