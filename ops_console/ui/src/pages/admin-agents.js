// Agent instances (ops_console/README.md "Source control and agent instances"): the receivers of
// a signed copy of every forge push, each with a bearer token to read the commits back (GET/POST
// /api/admin/agent-instances, PATCH/DELETE …/{id}). The token (agt_…) and a signing secret the
// console makes are shown this once, on creation and on rotation; rotating either, switching an
// instance off and deleting it ask for a confirmation that says what stops working.
import { html, useEffect, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime, number } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';
import { Confirm } from '../components/confirm.js';
import { ShownOnce } from '../components/shown-once.js';
import { StrayError, TextField, useAction } from '../components/form.js';

const ASKS = {
  token: (a) => ({ title: `Issue a new token for ${a.name}?`, confirm: 'Issue a new token',
    text: 'The token the agent holds stops working at once (401); the new one is shown once.' }),
  secret: (a) => ({ title: `Replace the signing secret of ${a.name}?`, confirm: 'Replace it',
    text: 'The next copies are signed with a new secret, shown once; the agent must verify with it from then on.' }),
  off: (a) => ({ title: `Switch ${a.name} off?`, confirm: 'Switch it off',
    text: 'No copy of a push goes to it, and its token is refused (403), until it is switched on again.' }),
  delete: (a) => ({ title: `Delete ${a.name}?`, confirm: 'Delete it',
    text: 'Its token stops working, and its queued copies are deleted with it.' }),
};

function Create({ onCreated }) {
  const [form, setForm] = useState({ name: '', url: '', secret: '', enabled: true });
  const act = useAction();
  const set = (k) => (v) => setForm((f) => ({ ...f, [k]: v }));
  const submit = (e) => {
    e.preventDefault();
    act.run('create', () => api.post('/api/admin/agent-instances', {
      name: form.name.trim(), url: form.url.trim(), enabled: form.enabled, ...(form.secret.trim() ? { secret: form.secret.trim() } : {}),
    }), (created) => {
      onCreated(created);
      setForm({ name: '', url: '', secret: '', enabled: true });
      return null;
    });
  };
  const f = act.fields;
  return html`<form class="card stack" onSubmit=${submit} noValidate aria-labelledby="agent-new-h">
    <header><h2 id="agent-new-h">Add an instance</h2></header>
    <div class="grid two">
      <${TextField} id="agent-name" label="Name" value=${form.name} onInput=${set('name')} maxlength="100"
        error=${f.name || (act.error?.status === 409 ? act.error.message : null)} />
      <${TextField} id="agent-url" label="URL" type="url" value=${form.url} onInput=${set('url')} error=${f.url} placeholder="https://"
        hint="Where the console posts each push; checked as a webhook channel's is." />
    </div>
    <${TextField} id="agent-secret" label="Signing secret (optional)" type="password" value=${form.secret} onInput=${set('secret')} error=${f.secret}
      hint="Leave it empty and the console makes one, shown once; or give whsec_ and the base64 of 24 to 64 random bytes." />
    <label class="check"><input type="checkbox" checked=${form.enabled} onChange=${(e) => set('enabled')(e.currentTarget.checked)} /> Send it copies</label>
    ${act.error?.status !== 409 ? html`<${StrayError} error=${act.error} known=${['name', 'url', 'secret']} />` : null}
    <div class="row"><button type="submit" class="primary" disabled=${!!act.busy}>${act.busy ? 'Adding…' : 'Add the instance'}</button></div>
  </form>`;
}

// An instance's name and URL changed (PATCH /api/admin/agent-instances/{id} {name, url}): the
// route's 400 under its input, a taken name's 409 under the name.
function Edit({ agent, onSaved, onCancel }) {
  const [form, setForm] = useState({ name: agent.name, url: agent.url });
  const act = useAction();
  const set = (k) => (v) => setForm((f) => ({ ...f, [k]: v }));
  const submit = (e) => {
    e.preventDefault();
    act.run('save', () => api.patch(`/api/admin/agent-instances/${agent.id}`, { name: form.name.trim(), url: form.url.trim() }),
      (saved) => { onSaved(saved); return null; });
  };
  const f = act.fields;
  return html`<form class="card stack" onSubmit=${submit} noValidate aria-labelledby="agent-edit-h">
    <header><h2 id="agent-edit-h">Change ${agent.name}</h2></header>
    <div class="grid two">
      <${TextField} id="agent-edit-name" label="Name" value=${form.name} onInput=${set('name')} maxlength="100"
        error=${f.name || (act.error?.status === 409 ? act.error.message : null)} />
      <${TextField} id="agent-edit-url" label="URL" type="url" value=${form.url} onInput=${set('url')} error=${f.url} />
    </div>
    ${act.error?.status !== 409 ? html`<${StrayError} error=${act.error} known=${['name', 'url']} />` : null}
    <div class="row"><button type="submit" class="primary" disabled=${!!act.busy}>${act.busy ? 'Saving…' : 'Save the changes'}</button>
      <button type="button" onClick=${onCancel}>Cancel</button></div>
  </form>`;
}

function Deliveries({ d }) {
  if (!d) return '—';
  return html`<span>${number(d.delivered)} delivered, ${number(d.pending)} waiting, <span class=${d.failed ? 'error-text' : ''}>${number(d.failed)} failed</span></span>
    ${d.last_delivered_at ? html`<div class="muted small">last ${dateTime(d.last_delivered_at)}</div>` : null}
    ${d.last_error ? html`<div class="error-text small">${d.last_error}</div>` : null}`;
}

export function AdminAgents() {
  const list = useResource('/api/admin/agent-instances');
  const [agents, setAgents] = useState(null);
  const [asked, setAsked] = useState(null); // {what, agent}
  const [shown, setShown] = useState(null); // {agent, token?, secret?, why}
  const [said, setSaid] = useState('');
  const [editing, setEditing] = useState(null); // the instance whose name and URL are being changed
  const act = useAction();
  useEffect(() => { if (list.data) setAgents(list.data); }, [list.data]);
  const replace = (a) => setAgents((l) => (l || []).map((x) => (x.id === a.id ? { ...x, ...a } : x)));
  const reveal = (a, why) => {
    if (a.token || a.secret) setShown({ agent: a, token: a.token, secret: a.secret, why });
  };

  const created = (a) => {
    setAgents((l) => [...(l || []), a].sort((x, y) => x.name.localeCompare(y.name)));
    reveal(a, 'created');
    setSaid(`Added ${a.name}.`);
  };
  const patch = (a, body, done) => act.run(`${a.id}`, () => api.patch(`/api/admin/agent-instances/${a.id}`, body), (out) => {
    replace(out);
    done(out);
  });
  const confirmed = () => {
    const { what, agent: a } = asked;
    setAsked(null);
    if (what === 'token') patch(a, { rotate_token: true }, (out) => { reveal(out, 'a new token'); setSaid(`${a.name} has a new token.`); });
    else if (what === 'secret') patch(a, { rotate_secret: true }, (out) => { reveal(out, 'a new signing secret'); setSaid(`${a.name} has a new signing secret.`); });
    else if (what === 'off') patch(a, { enabled: false }, () => setSaid(`${a.name} is off.`));
    else if (what === 'delete') {
      act.run(`${a.id}`, () => api.del(`/api/admin/agent-instances/${a.id}`), () => {
        setAgents((l) => l.filter((x) => x.id !== a.id));
        if (shown?.agent.id === a.id) setShown(null);
        setSaid(`Deleted ${a.name}.`);
      });
    }
  };
  const ask = asked ? ASKS[asked.what](asked.agent) : null;

  return html`<div class="stack admin-page">
    <div class="page-head"><h1>Agent instances</h1><span class="note">each gets a signed copy of every push (Standard Webhooks) and reads commits with its token</span></div>
    ${shown ? html`<${ShownOnce} testid="agent-credentials" title=${`${shown.agent.name}: ${shown.why === 'created' ? 'its credentials' : shown.why}, shown this once.`}
      values=${[shown.token ? { label: 'Bearer token', value: shown.token } : null, shown.secret ? { label: 'Signing secret', value: shown.secret } : null].filter(Boolean)}
      onDismiss=${() => setShown(null)}>Give ${shown.token && shown.secret ? 'them' : 'it'} to the agent now: the console keeps only a hash of the token and never shows a secret again.<//>` : null}
    <section class="card" aria-labelledby="agents-h">
      <header><h2 id="agents-h">Instances</h2><span class="note">by name</span></header>
      ${!agents ? html`<${Pending} resource=${list} label="agent instances" />`
        : !agents.length ? html`<${Empty}>No agent instance: pushes are stored and announced, and copied to nobody.<//>`
        : html`<table class="stack-on-phone" data-testid="agents">
          <caption class="visually-hidden">Agent instances</caption>
          <thead><tr><th scope="col">Instance</th><th scope="col">URL</th><th scope="col">State</th><th scope="col">Copies</th>
            <th scope="col">Token issued</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>${agents.map((a) => html`<tr key=${a.id} data-agent=${a.id}>
            <th scope="row">${a.name}</th>
            <td data-label="URL" class="wrap"><span class="mono">${a.url}</span></td>
            <td data-label="State"><span class=${`badge ${a.enabled ? 'ok' : 'neutral'}`}>${a.enabled ? 'on' : 'off'}</span></td>
            <td data-label="Copies"><div><${Deliveries} d=${a.deliveries} /></div></td>
            <td data-label="Token issued">${dateTime(a.token_issued_at)}</td>
            <td><div class="row tight">
              ${a.enabled ? html`<button type="button" class="danger" disabled=${!!act.busy} aria-label=${`Switch off ${a.name}`}
                  onClick=${() => setAsked({ what: 'off', agent: a })}>Switch off</button>`
                : html`<button type="button" disabled=${!!act.busy} aria-label=${`Switch on ${a.name}`}
                  onClick=${() => patch(a, { enabled: true }, () => setSaid(`${a.name} is on.`))}>Switch on</button>`}
              <button type="button" disabled=${!!act.busy} aria-label=${`Change ${a.name}`} onClick=${() => setEditing(a)}>Change</button>
              <button type="button" disabled=${!!act.busy} aria-label=${`New token for ${a.name}`} onClick=${() => setAsked({ what: 'token', agent: a })}>New token</button>
              <button type="button" disabled=${!!act.busy} aria-label=${`New secret for ${a.name}`} onClick=${() => setAsked({ what: 'secret', agent: a })}>New secret</button>
              <button type="button" class="danger" disabled=${!!act.busy} aria-label=${`Delete ${a.name}`} onClick=${() => setAsked({ what: 'delete', agent: a })}>Delete</button>
            </div></td>
          </tr>`)}</tbody>
        </table>`}
      <p role="status" class="small ok-text">${said}</p>
      ${act.error ? html`<${ErrorBanner} error=${act.error} />` : null}
    </section>
    ${editing ? html`<${Edit} key=${editing.id} agent=${editing} onCancel=${() => setEditing(null)}
      onSaved=${(saved) => { replace(saved); setEditing(null); setSaid(`${saved.name} saved.`); }} />` : null}
    <${Create} onCreated=${created} />
    <${Confirm} danger id="agent-ask" open=${!!asked} title=${ask?.title || ''} confirm=${ask?.confirm || ''} cancel="Keep it"
      onConfirm=${confirmed} onCancel=${() => setAsked(null)}><p>${ask?.text || ''}</p><//>
  </div>`;
}
