// Notifications, the administrators' part (ops_console/README.md "Notifications"): the event keys
// (GET/POST /api/admin/notify-event-keys, PUT/DELETE …/{key}; an inactive key is muted and the
// users' matrix does not list it) and the global channels, which get every event (GET
// /api/notification-channels?owner=global; POST /api/notification-channels; PATCH, DELETE,
// POST …/{id}/test and …/{id}/rotate-secret). A channel's name and configuration are changed in
// place (PATCH …/{id} {name, config}: the route merges the config, so a secret left empty keeps the
// stored one), each refusal said under the field the route's 400 names. A webhook's signing
// secret the console makes is shown this once; deleting a key or a channel, switching a channel
// off and replacing a secret ask for a confirmation first. The channel types and their fields are
// the personal channels' own (pages/preferences-channels.js).
import { html, useEffect, useLayoutEffect, useRef, useResetWith, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime, number, time } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';
import { Confirm } from '../components/confirm.js';
import { ShownOnce } from '../components/shown-once.js';
import { StrayError, TextField, useAction } from '../components/form.js';
import { CHANNEL_TYPES, testWords } from './preferences-channels.js';

const NEW_KEY = { key: '', description: '', sort_order: '0', is_active: true };

function KeyForm({ editing, onSaved, onCancel }) {
  const [form, setForm] = useState(editing ? { ...editing, sort_order: String(editing.sort_order) } : NEW_KEY);
  const act = useAction();
  useResetWith(() => setForm(editing ? { ...editing, sort_order: String(editing.sort_order) } : NEW_KEY), [editing?.key]);
  const set = (k) => (v) => setForm((f) => ({ ...f, [k]: v }));
  const submit = (e) => {
    e.preventDefault();
    const order = /^-?\d+$/.test(form.sort_order.trim()) ? Number(form.sort_order.trim()) : form.sort_order;
    const body = { description: form.description.trim(), sort_order: order, is_active: form.is_active };
    act.run('save', () => (editing ? api.put(`/api/admin/notify-event-keys/${encodeURIComponent(editing.key)}`, body)
      : api.post('/api/admin/notify-event-keys', { key: form.key.trim(), ...body })), (saved) => {
      onSaved(saved, !editing);
      if (!editing) setForm(NEW_KEY);
      return null;
    });
  };
  const f = act.fields;
  return html`<form class="stack key-form" onSubmit=${submit} noValidate aria-labelledby="key-form-h">
    <h3 id="key-form-h">${editing ? html`Change <code>${editing.key}</code>` : 'Add an event key'}</h3>
    <div class="grid three">
      ${editing ? null : html`<${TextField} id="key-key" label="Key" value=${form.key} onInput=${set('key')} error=${f.key || (act.error?.status === 409 ? act.error.message : null)}
        hint="Lower-case letters, digits and _, starting with a letter: ticket_escalated." maxlength="128" />`}
      <${TextField} id="key-description" label="Description" value=${form.description} onInput=${set('description')} error=${f.description} maxlength="500" />
      <${TextField} id="key-order" label="Sort order" value=${form.sort_order} onInput=${set('sort_order')} error=${f.sort_order} inputmode="numeric"
        hint="Smaller first in the matrix." />
    </div>
    <label class="check"><input type="checkbox" checked=${form.is_active} onChange=${(e) => set('is_active')(e.currentTarget.checked)} />
      Active <span class="muted">(an inactive key is muted: nothing is sent for it, and the matrix leaves it out)</span></label>
    ${act.error?.status === 409 && editing ? html`<${ErrorBanner} error=${act.error} />` : null}
    ${act.error?.status !== 409 ? html`<${StrayError} error=${act.error} known=${['key', 'description', 'sort_order']} />` : null}
    <div class="row">
      <button type="submit" class="primary" disabled=${!!act.busy}>${act.busy ? 'Saving…' : editing ? 'Save the key' : 'Add the key'}</button>
      ${editing ? html`<button type="button" onClick=${onCancel}>Cancel</button>` : null}
    </div>
  </form>`;
}

function EventKeys() {
  const list = useResource('/api/admin/notify-event-keys');
  const [keys, setKeys] = useState(null);
  const [editing, setEditing] = useState(null);
  const [asked, setAsked] = useState(null);
  const del = useAction();
  const [said, setSaid] = useState('');
  useEffect(() => { if (list.data) setKeys(list.data); }, [list.data]);
  const saved = (k, created) => {
    setKeys((l) => [...(l || []).filter((x) => x.key !== k.key), k]
      .sort((a, b) => a.sort_order - b.sort_order || a.key.localeCompare(b.key)));
    setEditing(null);
    setSaid(created ? `Added ${k.key}.` : `Saved ${k.key}.`);
  };
  const remove = () => {
    const k = asked;
    setAsked(null);
    del.run('delete', () => api.del(`/api/admin/notify-event-keys/${encodeURIComponent(k.key)}`), () => {
      setKeys((l) => l.filter((x) => x.key !== k.key));
      setSaid(`Deleted ${k.key}.`);
    });
  };
  return html`<section class="card" aria-labelledby="keys-h">
    <header><h2 id="keys-h">Event keys</h2><span class="note">the events users subscribe to, in this order</span></header>
    ${!keys ? html`<${Pending} resource=${list} label="event keys" />`
      : !keys.length ? html`<${Empty}>No event key yet: add one below.<//>`
      : html`<table class="stack-on-phone" data-testid="event-keys">
        <caption class="visually-hidden">Notification event keys</caption>
        <thead><tr><th scope="col">Key</th><th scope="col">Description</th><th scope="col" class="num">Order</th><th scope="col">State</th>
          <th scope="col">Changed</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${keys.map((k) => html`<tr key=${k.key} data-key=${k.key}>
          <th scope="row"><code>${k.key}</code></th>
          <td data-label="Description" class="wrap">${k.description}</td>
          <td data-label="Order" class="num">${number(k.sort_order)}</td>
          <td data-label="State"><span class=${`badge ${k.is_active ? 'ok' : 'neutral'}`}>${k.is_active ? 'active' : 'muted'}</span></td>
          <td data-label="Changed">${dateTime(k.updated_at)}</td>
          <td><div class="row tight">
            <button type="button" aria-label=${`Change ${k.key}`} onClick=${() => { setSaid(''); setEditing(k); }}>Change</button>
            <button type="button" class="danger" aria-label=${`Delete ${k.key}`} onClick=${() => setAsked(k)}>Delete</button>
          </div></td>
        </tr>`)}</tbody>
      </table>`}
    <p role="status" class="small ok-text">${said}</p>
    ${del.error ? html`<${ErrorBanner} error=${del.error} />` : null}
    <${KeyForm} key=${editing ? editing.key : 'new'} editing=${editing} onSaved=${saved} onCancel=${() => setEditing(null)} />
    <${Confirm} danger id="key-delete" open=${!!asked} title=${asked ? `Delete ${asked.key}?` : ''} confirm="Delete it" cancel="Keep it"
      onConfirm=${remove} onCancel=${() => setAsked(null)}>
      <p>The key leaves the catalogue and the users' matrix, with their choices for it. An event raised with it still reaches the channels; to silence it, make it inactive instead.</p>
    <//>
  </section>`;
}

// What a channel's configuration says, without its secrets.
function where(c) {
  const cfg = c.config || {};
  return cfg.url || cfg.topic || (cfg.chat_id !== undefined ? `chat ${cfg.chat_id}` : '—');
}

// A channel form's fields: the topic's input goes while a new one is to be minted.
const shownFields = (spec, form) => spec.fields.filter((f) => !(spec.mint && form.mint && f.key === 'topic'));

// The config a channel form sends: mint_topic instead of a typed topic when asked; a field that
// `mayOmit` names is left out while empty (the console makes it, or keeps the stored one).
function configOf(spec, form, mayOmit) {
  const config = {};
  if (spec.mint && form.mint) config.mint_topic = true;
  for (const f of shownFields(spec, form)) {
    const value = (form[f.key] || '').trim();
    if (mayOmit(f) && !value) continue;
    config[f.key] = value;
  }
  return config;
}

// The route's message for a config field (a 400's `config.<key>`; a topic's may name mint_topic).
const configError = (act, key) => act.fields[`config.${key}`] || (key === 'topic' && act.fields['config.mint_topic']) || null;

function NewChannel({ onCreated }) {
  const [type, setType] = useState('chat_webhook');
  const spec = CHANNEL_TYPES.find((t) => t.type === type);
  const [form, setForm] = useState({ name: '', enabled: true, mint: true });
  const act = useAction();
  const set = (k) => (v) => setForm((f) => ({ ...f, [k]: v }));
  const submit = (e) => {
    e.preventDefault();
    const config = configOf(spec, form, (f) => f.generated); // an empty generated one: the console makes one
    act.run('create', () => api.post('/api/notification-channels', { channel_type: type, name: form.name.trim(), enabled: form.enabled, config }),
      (created) => {
        onCreated(created);
        setForm({ name: '', enabled: true, mint: true });
        return null;
      });
  };
  const known = ['name', 'channel_type', 'config.mint_topic', ...spec.fields.map((f) => `config.${f.key}`)];
  return html`<form class="stack" onSubmit=${submit} noValidate aria-labelledby="ch-new-h">
    <h3 id="ch-new-h">Add a global channel</h3>
    <div class="field">
      <label for="ch-type">Type</label>
      <select id="ch-type" value=${type} aria-describedby="ch-type-hint" onChange=${(e) => { setType(e.currentTarget.value); act.clear(); }}>
        ${CHANNEL_TYPES.map((t) => html`<option key=${t.type} value=${t.type}>${t.title}</option>`)}
      </select>
      <div class="hint" id="ch-type-hint">${spec.about}</div>
    </div>
    ${spec.mint ? html`<label class="check"><input type="checkbox" checked=${form.mint} onChange=${(e) => set('mint')(e.currentTarget.checked)} />
      Mint a new topic <span class="muted">(a random one; whoever knows a topic can read it)</span></label>` : null}
    ${shownFields(spec, form).map((f) => html`<${TextField} key=${`${type}-${f.key}`}
      id=${`ch-new-${f.key}`} label=${f.label} value=${form[f.key] || ''} onInput=${set(f.key)} error=${configError(act, f.key)}
      hint=${f.hint} type=${f.secret ? 'password' : f.input === 'url' ? 'url' : 'text'} />`)}
    <${TextField} id="ch-new-name" label="Name" value=${form.name} onInput=${set('name')} error=${act.fields.name} maxlength="200" />
    <label class="check"><input type="checkbox" checked=${form.enabled} onChange=${(e) => set('enabled')(e.currentTarget.checked)} /> Send notifications here</label>
    <${StrayError} error=${act.error} known=${known} />
    <div class="row"><button type="submit" class="primary" disabled=${!!act.busy}>${act.busy ? 'Adding…' : 'Add the channel'}</button>
      <span class="muted small">Adding sends nothing; send a test once it is listed.</span></div>
  </form>`;
}

// A channel's name and configuration changed in place (PATCH /api/notification-channels/{id}
// {name, config}). The route merges `config` into the stored one: a secret left empty is kept
// (secrets are write-only: the form never shows them), a topic can be minted anew. Each field the
// route's 400 names is said under its input; nothing is saved then.
function EditChannel({ channel, onSaved, onCancel }) {
  const spec = CHANNEL_TYPES.find((t) => t.type === channel.channel_type);
  const initial = () => {
    const form = { name: channel.name || '', mint: false };
    for (const f of spec?.fields || []) form[f.key] = f.secret ? '' : String(channel.config?.[f.key] ?? '');
    return form;
  };
  const [form, setForm] = useState(initial);
  const act = useAction();
  const first = useRef(null);
  useLayoutEffect(() => first.current?.focus(), []); // before the paint, as the focus back below
  const set = (k) => (v) => setForm((f) => ({ ...f, [k]: v }));
  if (!spec) return null; // a type this page does not know: nothing it could edit
  const heading = `Change ${channel.name || `${channel.channel_type} ${channel.id}`}`;
  const submit = (e) => {
    e.preventDefault();
    const config = configOf(spec, form, (f) => f.secret); // an empty secret: the stored one stays
    act.run('save', () => api.patch(`/api/notification-channels/${channel.id}`, { name: form.name.trim(), config }),
      (saved) => { onSaved(saved); return null; });
  };
  const known = ['name', 'config.mint_topic', ...spec.fields.map((f) => `config.${f.key}`)];
  const secretHint = (f) => `${channel.secrets_set?.includes(f.key) ? 'Set, and never shown. ' : ''}Leave it empty to keep the stored one${f.generated ? '; or give another: whsec_ and the base64 of 24 to 64 random bytes (“New secret” makes one)' : ''}.`;
  return html`<form class="card stack channel-edit" onSubmit=${submit} noValidate aria-labelledby="ch-edit-h" data-testid="channel-edit">
    <header><h3 id="ch-edit-h" ref=${first} tabindex="-1">${heading}</h3><span class="note"><code>${channel.channel_type}</code>: its type cannot change</span></header>
    ${spec.mint ? html`<label class="check"><input type="checkbox" checked=${form.mint} onChange=${(e) => set('mint')(e.currentTarget.checked)} />
      Mint a new topic <span class="muted">(replaces the current one: subscribers must follow it)</span></label>` : null}
    <div class="grid two">
      ${shownFields(spec, form).map((f) => html`<${TextField} key=${f.key}
        id=${`ch-edit-${f.key}`} label=${f.label} value=${form[f.key] || ''} onInput=${set(f.key)} error=${configError(act, f.key)}
        hint=${f.secret ? secretHint(f) : f.hint} type=${f.secret ? 'password' : f.input === 'url' ? 'url' : 'text'} />`)}
      <${TextField} id="ch-edit-name" label="Name" value=${form.name} onInput=${set('name')} error=${act.fields.name} maxlength="200" />
    </div>
    <${StrayError} error=${act.error} known=${known} />
    <div class="row"><button type="submit" class="primary" disabled=${!!act.busy}>${act.busy ? 'Saving…' : 'Save the changes'}</button>
      <button type="button" onClick=${onCancel}>Cancel</button>
      <span class="muted small">Saving sends nothing; send a test afterwards.</span></div>
  </form>`;
}

const ASKS = {
  delete: (c) => ({ title: `Delete ${c.name || c.channel_type}?`, confirm: 'Delete it',
    text: 'Notifications stop going to it; its configuration and secrets are deleted.' }),
  off: (c) => ({ title: `Switch ${c.name || c.channel_type} off?`, confirm: 'Switch it off',
    text: 'No event reaches it until it is switched on again; its configuration is kept, and a test still goes.' }),
  rotate: (c) => ({ title: `Replace the signing secret of ${c.name || c.channel_type}?`, confirm: 'Replace it',
    text: 'The console makes a new secret, shown once; from the next message on the old one no longer verifies, so update the receiver at once.' }),
};

function GlobalChannels() {
  const list = useResource('/api/notification-channels?owner=global');
  const [channels, setChannels] = useState(null);
  const [asked, setAsked] = useState(null); // {what, channel}
  const [shown, setShown] = useState(null); // {channel, secret}
  const [said, setSaid] = useState(null); // {id, text, ok}
  const [editing, setEditing] = useState(null); // the channel whose configuration is being changed
  const [focusBack, setFocusBack] = useState(null); // the channel whose "Change" gets the focus back
  const act = useAction();
  useEffect(() => { if (list.data) setChannels(list.data); }, [list.data]);
  // Before the browser paints the closed form (a layout effect, not an effect, which runs after
  // the paint): the focus never rests on the page's body in between.
  useLayoutEffect(() => {
    if (focusBack === null) return;
    document.querySelector(`tr[data-channel-id="${focusBack}"] button.change`)?.focus();
    setFocusBack(null);
  }, [focusBack]);
  const closeEdit = (id) => { setEditing(null); setFocusBack(id); };
  const replace = (c) => setChannels((l) => (l || []).map((x) => (x.id === c.id ? c : x)));
  const label = (c) => c.name || `${c.channel_type} ${c.id}`;

  const created = (c) => {
    setChannels((l) => [...(l || []), c]);
    if (c.secret) setShown({ channel: c, secret: c.secret });
    setSaid({ id: c.id, text: `Added ${label(c)}.`, ok: true });
  };
  const test = (c) => act.run(`test-${c.id}`, () => api.post(`/api/notification-channels/${c.id}/test`),
    (out) => setSaid({ id: c.id, text: `${label(c)}: ${testWords(out)}`, ok: out.delivered, at: new Date().toISOString() }));
  const enable = (c, enabled) => act.run(`enable-${c.id}`, () => api.patch(`/api/notification-channels/${c.id}`, { enabled }), (saved) => {
    replace(saved);
    setSaid({ id: c.id, text: `${label(c)} is ${enabled ? 'on' : 'off'}.`, ok: true });
  });
  const confirmed = () => {
    const { what, channel: c } = asked;
    setAsked(null);
    if (what === 'off') enable(c, false);
    else if (what === 'delete') {
      act.run(`delete-${c.id}`, () => api.del(`/api/notification-channels/${c.id}`), () => {
        setChannels((l) => l.filter((x) => x.id !== c.id));
        if (shown?.channel.id === c.id) setShown(null);
        if (editing?.id === c.id) setEditing(null);
        setSaid({ id: c.id, text: `Deleted ${label(c)}.`, ok: true });
      });
    } else if (what === 'rotate') {
      act.run(`rotate-${c.id}`, () => api.post(`/api/notification-channels/${c.id}/rotate-secret`), (out) => {
        replace(out);
        setShown({ channel: out, secret: out.secret });
        setSaid({ id: c.id, text: `${label(c)} has a new signing secret.`, ok: true });
      });
    }
  };
  const ask = asked ? ASKS[asked.what](asked.channel) : null;

  return html`<section class="card" aria-labelledby="channels-h">
    <header><h2 id="channels-h">Global channels</h2><span class="note">every event goes to each enabled one, whoever subscribed</span></header>
    ${shown ? html`<${ShownOnce} testid="channel-secret" title=${`The signing secret of ${label(shown.channel)}, shown this once.`}
      values=${[{ label: 'Signing secret', value: shown.secret }]} onDismiss=${() => setShown(null)}>
      Give it to the receiver now: the console keeps it hidden from here on.<//>` : null}
    ${!channels ? html`<${Pending} resource=${list} label="global channels" />`
      : !channels.length ? html`<${Empty}>No global channel: events reach only the users' own channels.<//>`
      : html`<table class="stack-on-phone" data-testid="global-channels">
        <caption class="visually-hidden">Global notification channels</caption>
        <thead><tr><th scope="col">Channel</th><th scope="col">Type</th><th scope="col">Sends to</th><th scope="col">State</th>
          <th scope="col">Changed</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${channels.map((c) => html`<tr key=${c.id} data-channel-id=${c.id}>
          <th scope="row">${label(c)}</th>
          <td data-label="Type"><code>${c.channel_type}</code></td>
          <td data-label="Sends to" class="wrap">${where(c)}${c.secrets_set?.length ? html` <span class="muted small">(${c.secrets_set.join(', ')} set)</span>` : null}</td>
          <td data-label="State"><span class=${`badge ${c.enabled ? 'ok' : 'neutral'}`}>${c.enabled ? 'on' : 'off'}</span></td>
          <td data-label="Changed">${dateTime(c.updated_at)}</td>
          <td><div class="row tight">
            <button type="button" disabled=${!!act.busy} aria-label=${`Send a test to ${label(c)}`} onClick=${() => test(c)}>${act.busy === `test-${c.id}` ? 'Sending…' : 'Test'}</button>
            ${c.enabled ? html`<button type="button" class="danger" disabled=${!!act.busy} aria-label=${`Switch off ${label(c)}`} onClick=${() => setAsked({ what: 'off', channel: c })}>Switch off</button>`
              : html`<button type="button" disabled=${!!act.busy} aria-label=${`Switch on ${label(c)}`} onClick=${() => enable(c, true)}>Switch on</button>`}
            <button type="button" class="change" disabled=${!!act.busy} aria-label=${`Change ${label(c)}`}
              onClick=${() => setEditing(c)}>Change</button>
            ${c.channel_type === 'webhook' ? html`<button type="button" disabled=${!!act.busy} aria-label=${`New secret for ${label(c)}`}
              onClick=${() => setAsked({ what: 'rotate', channel: c })}>New secret</button>` : null}
            <button type="button" class="danger" disabled=${!!act.busy} aria-label=${`Delete ${label(c)}`} onClick=${() => setAsked({ what: 'delete', channel: c })}>Delete</button>
          </div></td>
        </tr>`)}</tbody>
      </table>`}
    <p role="status" class=${`small test-result ${said ? (said.ok ? 'ok' : 'failed') : ''}`}>${said ? html`${said.text}${said.at ? html` <span class="muted">${time(said.at)}</span>` : null}` : ''}</p>
    ${act.error ? html`<${ErrorBanner} error=${act.error} />` : null}
    ${editing ? html`<${EditChannel} key=${editing.id} channel=${editing} onCancel=${() => closeEdit(editing.id)}
      onSaved=${(saved) => { replace(saved); closeEdit(saved.id); setSaid({ id: saved.id, text: `Saved ${label(saved)}.`, ok: true }); }} />` : null}
    <${NewChannel} onCreated=${created} />
    <${Confirm} danger id="channel-ask" open=${!!asked} title=${ask?.title || ''} confirm=${ask?.confirm || ''} cancel="Keep it"
      onConfirm=${confirmed} onCancel=${() => setAsked(null)}><p>${ask?.text || ''}</p><//>
  </section>`;
}

export function AdminNotifications() {
  return html`<div class="stack admin-page">
    <div class="page-head"><h1>Notifications</h1><span class="note">users choose their own channels and events under Preferences</span></div>
    <${EventKeys} />
    <${GlobalChannels} />
  </div>`;
}
