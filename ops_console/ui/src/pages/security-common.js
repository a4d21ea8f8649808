// What the security pages share: a vendor's failure said where its data would be, the
// mail-security tenant field, and the form that maps a vendor's name to a PSA company.
import { html, useResetWith, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useResource } from '../components/resource.js';
import { ErrorBanner, FieldError, Pending } from '../components/messages.js';

// A route that calls a vendor: 502 (the vendor failed) and 503 (not configured) said in the
// vendor's name with the route's detail, 403 while the integration is switched off; else Pending.
export function VendorError({ error, vendor, onRetry }) {
  if (!error) return null;
  const detail = error.problem?.detail;
  if (error.status === 502 || error.status === 503 || error.status === 403) {
    const head = error.status === 502 ? `${vendor} did not answer as expected.`
      : error.status === 503 ? `${vendor} is not configured on this console.`
      : `You may not use ${vendor} here, or it is switched off.`;
    return html`<div class="banner error" role="alert"><div><strong>${head}</strong>
      ${detail ? html` <span>${detail}</span>` : null}</div>
      ${onRetry && error.status === 502 ? html`<button type="button" onClick=${onRetry}>Retry</button>` : null}</div>`;
  }
  return html`<${ErrorBanner} error=${error} onRetry=${onRetry} what=${vendor} />`;
}

export function VendorPending({ resource, vendor, label, lines }) {
  if (resource.error && resource.data === undefined) return html`<${VendorError} error=${resource.error} vendor=${vendor} onRetry=${resource.reload} />`;
  return html`<${Pending} resource=${resource} label=${label} lines=${lines} />`;
}

// The mail-security tenant a page asks (the routes' `tenant`; none: the first configured, which the
// answer names). The console lists no tenants, so it is typed; a name the console does not know is
// the route's 400, shown under this field. Kept in the fragment's query (?tenant=eu).

export function TenantField({ value, used, error, onChange }) {
  const [text, setText] = useState(value);
  useResetWith(() => setText(value), [value]);
  return html`<form class="row tenant-form" onSubmit=${(e) => { e.preventDefault(); onChange(text.trim().toLowerCase()); }}>
    <div class="field">
      <label for="tenant">Mimecast tenant</label>
      <input id="tenant" type="text" value=${text} placeholder=${used || 'the first configured'} autocomplete="off"
        spellcheck="false" maxlength="64" aria-invalid=${error ? 'true' : null}
        aria-describedby=${`tenant-hint${error ? ' tenant-error' : ''}`} onInput=${(e) => setText(e.currentTarget.value)} />
      <div class="hint" id="tenant-hint">Empty: the first configured tenant${used ? html` (now <strong>${used}</strong>)` : null}.</div>
      <${FieldError} id="tenant-error" message=${error} />
    </div>
    <button type="submit">Use tenant</button>
  </form>`;
}

// An administrator's mapping of a vendor's name (a site, a client name) to a PSA company
// (GET /api/data/companies-list: [{id, company_name}]): POST `path` {[keyField]: key, companyId};
// each 400's field message is shown under its select. onSaved gets the route's answer. `keyValue`
// turns the chosen key into what the route takes (a number for an id).
export function CompanyMapForm({ id, path, keyField, keyLabel, keys, onSaved, keyValue = (k) => k }) {
  const companies = useResource('/api/data/companies-list');
  const [key, setKey] = useState('');
  const [company, setCompany] = useState('');
  const [state, setState] = useState({ busy: false, error: null, saved: null });
  const submit = async (e) => {
    e.preventDefault();
    setState({ busy: true, error: null, saved: null });
    try {
      const saved = await api.post(path, { [keyField]: key === '' ? null : keyValue(key), companyId: company === '' ? null : Number(company) });
      // what was mapped, in the words the reader chose it by
      const keyLabel = keys.find((k) => k.value === key)?.label || key;
      const companyLabel = companies.data.find((c) => String(c.id) === company)?.company_name || company;
      setState({ busy: false, error: null, saved: { keyLabel, companyLabel } });
      onSaved(saved);
    } catch (error) {
      setState({ busy: false, error, saved: null });
    }
  };
  const fields = state.error?.status === 400 ? state.error.fields : {};
  const stray = state.error && !fields[keyField] && !fields.companyId;
  const select = (sid, label, value, onChange, options, error, empty) => html`<div class="field">
    <label for=${sid}>${label}</label>
    <select id=${sid} value=${value} aria-invalid=${error ? 'true' : null} aria-describedby=${error ? `${sid}-error` : null}
      onChange=${(e) => onChange(e.currentTarget.value)}>
      <option value="">${empty}</option>
      ${options.map((o) => html`<option key=${o.value} value=${o.value}>${o.label}</option>`)}
    </select>
    <${FieldError} id=${`${sid}-error`} message=${error} />
  </div>`;
  return html`<form class="stack map-form" onSubmit=${submit} noValidate aria-label=${`Map a ${keyLabel.toLowerCase()} to a company`}>
    <div class="grid form-grid">
      ${select(`${id}-key`, keyLabel, key, setKey, keys, fields[keyField], `Choose a ${keyLabel.toLowerCase()}`)}
      ${companies.data ? select(`${id}-company`, 'PSA company', company, setCompany,
          companies.data.map((c) => ({ value: String(c.id), label: c.company_name })), fields.companyId, 'Choose a company')
        : html`<div class="field"><${Pending} resource=${companies} label="companies" lines=${1} /></div>`}
    </div>
    <div class="row"><button type="submit" class="primary" disabled=${state.busy}>${state.busy ? 'Saving…' : 'Map'}</button>
      <span class="muted" role="status">${state.saved ? `Mapped ${state.saved.keyLabel} to ${state.saved.companyLabel}.` : ''}</span></div>
    ${stray ? html`<${ErrorBanner} error=${state.error} />` : null}
  </form>`;
}

// A mapping's removal after a confirmation: `ask(mapping)` opens it, `remove()` sends DELETE
// pathOf(mapping) and calls onDone; `error` is the refusal, if any.
export function useRemoval(pathOf, onDone) {
  const [asking, setAsking] = useState(null);
  const [error, setError] = useState(null);
  const remove = async () => {
    const m = asking;
    setAsking(null);
    setError(null);
    try {
      await api.del(pathOf(m));
      onDone();
    } catch (e) {
      setError(e);
    }
  };
  return { asking, ask: setAsking, cancel: () => setAsking(null), remove, error };
}
