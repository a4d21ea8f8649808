// The user's personal channels, one card per type (GET /api/me/channels; PUT, DELETE
// /api/me/channels/{type}; POST /api/me/channels/{type}/test): add or replace one, send it a test
// message, remove it after a confirmation. Each validator's message (a 400's errors[].field,
// "config.url") is shown under the input it names; a test's answer is said in words. Secrets
// (bot_token, secret) are write-only: the route lists them under secrets_set, and an empty input
// keeps the stored one.
import { html, useEffect, useRef, useResetWith, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime, time } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { ErrorBanner, FieldError, Pending } from '../components/messages.js';

// The four types and their config fields, as ops_console/README.md ("Channels") lists them.
export const CHANNEL_TYPES = [
  {
    type: 'chat_webhook', title: 'Chat webhook',
    about: 'A Google Chat or Microsoft Teams incoming webhook.',
    fields: [{ key: 'url', label: 'Webhook URL', input: 'url', hint: 'https, on a host the administrator allows (Google Chat, Teams).' }],
  },
  {
    type: 'messenger_bot', title: 'Messenger bot',
    about: 'A Telegram bot that writes to a chat.',
    fields: [
      { key: 'bot_token', label: 'Bot token', secret: true, hint: 'As BotFather gives it: 123456:ABC…' },
      { key: 'chat_id', label: 'Chat id', hint: 'A numeric chat id or an @channel name.' },
    ],
  },
  {
    type: 'push_topic', title: 'Push topic',
    about: 'An ntfy topic: subscribe to it in the ntfy app. Whoever knows the topic can read it, so a minted one is best.',
    fields: [{ key: 'topic', label: 'Topic', hint: 'Letters, digits, "-" and "_", at most 64.' }],
    mint: true,
  },
  {
    type: 'webhook', title: 'Webhook',
    about: 'JSON to a URL of yours, signed as Standard Webhooks describes.',
    fields: [
      { key: 'url', label: 'URL', input: 'url', hint: 'https, on a host the administrator allows.' },
      { key: 'secret', label: 'Signing secret', secret: true, generated: true,
        hint: 'Leave it empty and the console makes one, shown once after saving; or give your own: whsec_ and the base64 of 24 to 64 random bytes.' },
    ],
  },
];

// A test send's answer in words: "Delivered (HTTP 200)." / "Not delivered after 2 attempts: HTTP 500: receiver failed."
export function testWords(t) {
  if (!t) return '';
  const attempts = t.attempts > 1 ? ` after ${t.attempts} attempts` : '';
  if (t.delivered) return `The test message was delivered${t.http_status ? ` (HTTP ${t.http_status})` : ''}${attempts}.`;
  const why = t.reason || (t.http_status ? `HTTP ${t.http_status}` : 'no reason given');
  return `The test message was not delivered${attempts}: ${why}${/[.!?]$/.test(why) ? '' : '.'}`;
}

function formOf(spec, channel) {
  const form = { name: channel?.name || '', enabled: channel ? channel.enabled !== false : true, mint: false };
  for (const f of spec.fields) form[f.key] = f.secret ? '' : channel?.config?.[f.key] ?? '';
  if (spec.mint && !channel) form.mint = true;
  return form;
}

function ChannelCard({ spec, channel, onSaved, onRemoved }) {
  const [form, setForm] = useState(() => formOf(spec, channel));
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(null); // 'save' | 'test' | 'remove'
  const [result, setResult] = useState(null); // {text, ok, at}
  const [shown, setShown] = useState(null); // a secret the console made, shown this once
  const dialog = useRef(null);
  const firstInput = useRef(null);
  const t = spec.type;
  useResetWith(() => setForm(formOf(spec, channel)), [channel?.updated_at, !!channel]);

  const set = (key) => (e) => {
    const el = e.currentTarget;
    setForm((f) => ({ ...f, [key]: el.type === 'checkbox' ? el.checked : el.value }));
  };

  const save = async (e) => {
    e.preventDefault();
    const config = {};
    if (spec.mint && form.mint) config.mint_topic = true;
    for (const f of spec.fields) {
      if (spec.mint && form.mint && f.key === 'topic') continue;
      // an empty secret keeps the stored one, or (webhook) has the console make one
      if (f.secret && form[f.key] === '' && (channel?.secrets_set?.includes(f.key) || f.generated)) continue;
      config[f.key] = form[f.key].trim();
    }
    setBusy('save');
    setError(null);
    setResult(null);
    try {
      const out = await api.put(`/api/me/channels/${t}`, { name: form.name.trim(), enabled: form.enabled, config });
      setResult({ text: `Saved. ${testWords(out.test)}`, ok: out.test.delivered, at: new Date().toISOString() });
      setShown(out.channel.secret || null);
      onSaved(out.channel);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };

  const test = async () => {
    setBusy('test');
    setError(null);
    setResult(null);
    try {
      const out = await api.post(`/api/me/channels/${t}/test`);
      setResult({ text: testWords(out), ok: out.delivered, at: new Date().toISOString() });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };

  // a new signing secret: the old one stops working at once
  const rotate = async () => {
    setBusy('rotate');
    setError(null);
    setResult(null);
    try {
      const out = await api.post(`/api/me/channels/${t}/rotate-secret`);
      setShown(out.secret);
      setResult({ text: 'A new signing secret is in force; the old one no longer verifies.', ok: true, at: new Date().toISOString() });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };

  const remove = async () => {
    dialog.current?.close();
    setBusy('remove');
    setError(null);
    setResult(null);
    try {
      await api.del(`/api/me/channels/${t}`);
      setResult({ text: `Removed: nothing goes to your ${spec.title.toLowerCase()} any more.`, ok: true, at: null });
      onRemoved(t);
      firstInput.current?.focus();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };

  // field errors by input: "config.url" → url, "name" → name; the rest go to the banner
  const fields = error && error.status === 400 ? error.fields : {};
  const fieldOf = (key) => fields[`config.${key}`] || (key === 'topic' && fields['config.mint_topic']) || null;
  const known = new Set(['name', ...spec.fields.map((f) => `config.${f.key}`), 'config.mint_topic']);
  const stray = error && (error.status !== 400 || Object.keys(fields).length === 0
    || Object.keys(fields).some((k) => !known.has(k)));
  const id = (key) => `ch-${t}-${key}`;
  const described = (key, hint) => [hint ? `${id(key)}-hint` : null, fieldOf(key) || (key === 'name' && fields.name) ? `${id(key)}-error` : null]
    .filter(Boolean).join(' ') || null;

  const input = (f, first) => {
    const stored = f.secret && channel?.secrets_set?.includes(f.key);
    const message = fieldOf(f.key);
    const off = spec.mint && f.key === 'topic' && form.mint;
    return html`<div class="field" key=${f.key}>
      <label for=${id(f.key)}>${f.label}</label>
      <input id=${id(f.key)} ref=${first ? firstInput : null} type=${f.secret ? 'password' : f.input === 'url' ? 'url' : 'text'}
        autocomplete="off" spellcheck="false" value=${form[f.key]} disabled=${off}
        placeholder=${stored ? 'saved; leave empty to keep it' : off ? 'minted when you save' : f.input === 'url' ? 'https://' : null}
        aria-invalid=${message ? 'true' : null} aria-describedby=${described(f.key, f.hint)} onInput=${set(f.key)} />
      <div class="hint" id=${`${id(f.key)}-hint`}>${stored ? 'A secret is saved (it is never shown). ' : ''}${f.hint}</div>
      <${FieldError} id=${`${id(f.key)}-error`} message=${message} />
    </div>`;
  };

  return html`<section class="card channel" aria-labelledby=${`${id('h')}`} data-channel=${t}>
    <header>
      <h3 id=${id('h')}>${spec.title}</h3><code class="muted">${t}</code>
      ${channel ? html`<span class=${`badge ${channel.enabled ? 'ok' : 'neutral'}`}>${channel.enabled ? 'on' : 'off'}</span>`
        : html`<span class="badge neutral">not set up</span>`}
    </header>
    <p class="muted small">${spec.about}${channel ? html` Saved ${dateTime(channel.updated_at)}.` : null}</p>
    <form class="stack" onSubmit=${save} noValidate>
      ${spec.mint ? html`<fieldset class="chips">
          <legend class="visually-hidden">Topic</legend>
          <label class="chip"><input type="radio" name=${`${t}-mode`} checked=${form.mint}
            onChange=${() => setForm((f) => ({ ...f, mint: true }))} />Mint a new topic</label>
          <label class="chip"><input type="radio" name=${`${t}-mode`} checked=${!form.mint}
            onChange=${() => setForm((f) => ({ ...f, mint: false }))} />Use this topic</label>
        </fieldset>` : null}
      ${spec.fields.map((f, i) => input(f, i === 0))}
      <div class="field">
        <label for=${id('name')}>Name <span class="muted">(optional)</span></label>
        <input id=${id('name')} type="text" value=${form.name} autocomplete="off" maxlength="200"
          aria-invalid=${fields.name ? 'true' : null} aria-describedby=${fields.name ? `${id('name')}-error` : null} onInput=${set('name')} />
        <${FieldError} id=${`${id('name')}-error`} message=${fields.name} />
      </div>
      <label class="check"><input type="checkbox" checked=${form.enabled} onChange=${set('enabled')} /> Send notifications here</label>
      ${stray ? html`<${ErrorBanner} error=${error} />` : null}
      ${error && !stray ? html`<div class="field-error" role="alert">Not saved: ${Object.keys(fields).length === 1 ? 'a field needs' : 'some fields need'} a change (said under ${Object.keys(fields).length === 1 ? 'it' : 'each'}).</div>` : null}
      <div class="row">
        <button class="primary" type="submit" disabled=${!!busy} aria-label=${`${channel ? 'Save' : 'Add'} ${spec.title.toLowerCase()}`}>
          ${busy === 'save' ? 'Saving…' : channel ? 'Save' : 'Add'}</button>
        ${channel ? html`<button type="button" disabled=${!!busy} aria-label=${`Send a test to ${spec.title.toLowerCase()}`} onClick=${test}>
            ${busy === 'test' ? 'Sending…' : 'Send a test'}</button>
          ${spec.fields.some((f) => f.generated) ? html`<button type="button" disabled=${!!busy}
            aria-label=${`Make a new signing secret for ${spec.title.toLowerCase()}`} onClick=${rotate}>${busy === 'rotate' ? 'Rotating…' : 'New secret'}</button>` : null}
          <button type="button" class="danger" disabled=${!!busy} aria-label=${`Remove ${spec.title.toLowerCase()}`}
            onClick=${() => dialog.current?.showModal()}>Remove</button>` : null}
      </div>
      ${shown ? html`<div class="banner warn" role="status" data-testid=${`secret-${t}`}>
        <div><strong>Your signing secret, shown this once.</strong> Give it to your receiver now: the console keeps it hidden from here on.
          <div><code class="mono secret-value">${shown}</code></div></div>
        <button type="button" onClick=${() => setShown(null)}>I have kept it</button>
      </div>` : null}
      <p class=${`test-result ${result ? (result.ok ? 'ok' : 'failed') : ''}`} role="status">${result
        ? html`${result.text}${result.at ? html` <span class="muted">${time(result.at)}</span>` : null}` : ''}</p>
    </form>
    <dialog ref=${dialog} aria-labelledby=${id('confirm-h')} class="confirm">
      <h3 id=${id('confirm-h')}>Remove your ${spec.title.toLowerCase()}?</h3>
      <p>Notifications stop going to it; its configuration${spec.fields.some((f) => f.secret) ? ' and secret are' : ' is'} deleted.</p>
      <div class="row">
        <button type="button" class="danger" onClick=${remove}>Remove it</button>
        <button type="button" autofocus onClick=${() => dialog.current?.close()}>Keep it</button>
      </div>
    </dialog>
  </section>`;
}

export function PersonalChannels({ onChannels }) {
  const channels = useResource('/api/me/channels');
  const [list, setList] = useState(null);
  useEffect(() => {
    if (channels.data) setList(channels.data);
  }, [channels.data]);
  useEffect(() => {
    if (list) onChannels(list);
  }, [list]);

  const saved = (c) => setList((l) => [...(l || []).filter((x) => x.channel_type !== c.channel_type), c]);
  const removed = (type) => setList((l) => (l || []).filter((x) => x.channel_type !== type));

  return html`<section aria-labelledby="channels-h">
    <div class="page-head"><h2 id="channels-h">Personal channels</h2>
      <span class="note">one of each type; saving sends a test message</span></div>
    ${!list ? html`<div class="card"><${Pending} resource=${channels} label="your channels" /></div>`
      : html`<div class="grid two">${CHANNEL_TYPES.map((spec) => html`<${ChannelCard} key=${spec.type} spec=${spec}
          channel=${list.find((c) => c.channel_type === spec.type)} onSaved=${saved} onRemoved=${removed} />`)}</div>`}
  </section>`;
}
