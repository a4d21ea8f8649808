// Upload tokens for log evidence (ops_console/README.md "Log evidence": GET/POST
// /api/admin/upload-tokens, DELETE …/{id} revokes). A token (upl_…) is shown this once when it is
// made: the console keeps only its SHA-256. Revoking asks for a confirmation; a revoked token stays
// listed, and the files uploaded with it are kept (Data, Log evidence).
import { html, useEffect, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';
import { Confirm } from '../components/confirm.js';
import { ShownOnce } from '../components/shown-once.js';
import { StrayError, TextField, useAction } from '../components/form.js';

export function AdminUploadTokens() {
  const list = useResource('/api/admin/upload-tokens');
  const [tokens, setTokens] = useState(null);
  const [name, setName] = useState('');
  const [shown, setShown] = useState(null);
  const [asked, setAsked] = useState(null);
  const [said, setSaid] = useState('');
  const create = useAction();
  const revoke = useAction();
  useEffect(() => { if (list.data) setTokens(list.data); }, [list.data]);

  const submit = (e) => {
    e.preventDefault();
    create.run('create', () => api.post('/api/admin/upload-tokens', { name: name.trim() }), (t) => {
      const { token, ...row } = t;
      setTokens((l) => [row, ...(l || [])]);
      setShown({ name: t.name, token });
      setName('');
      setSaid(`Made ${t.name}.`);
    });
  };
  const confirmed = () => {
    const t = asked;
    setAsked(null);
    revoke.run('revoke', () => api.del(`/api/admin/upload-tokens/${t.id}`), () => {
      setSaid(`Revoked ${t.name}.`);
      list.reload();
    });
  };

  return html`<div class="stack admin-page">
    <div class="page-head"><h1>Upload tokens</h1><span class="note">one per script or tool that uploads log evidence (POST /api/log-evidence with Authorization: Bearer)</span></div>
    ${shown ? html`<${ShownOnce} testid="upload-token" title=${`The token ${shown.name}, shown this once.`}
      values=${[{ label: 'Upload token', value: shown.token }]} onDismiss=${() => setShown(null)}>
      Put it in the script's configuration now: the console keeps only its hash.<//>` : null}
    <section class="card" aria-labelledby="tokens-h">
      <header><h2 id="tokens-h">Tokens</h2><span class="note">newest first</span></header>
      ${!tokens ? html`<${Pending} resource=${list} label="upload tokens" />`
        : !tokens.length ? html`<${Empty}>No upload token yet: nothing can upload log evidence.<//>`
        : html`<table class="stack-on-phone" data-testid="upload-tokens">
          <caption class="visually-hidden">Upload tokens</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Made</th><th scope="col">Last used</th>
            <th scope="col"><span class="visually-hidden">Revoke</span></th></tr></thead>
          <tbody>${tokens.map((t) => html`<tr key=${t.id} data-token=${t.id}>
            <th scope="row">${t.name}</th>
            <td data-label="State"><span>${t.revokedAt ? html`<span class="badge neutral">revoked</span> <span class="muted small">${dateTime(t.revokedAt)}</span>`
              : html`<span class="badge ok">valid</span>`}</span></td>
            <td data-label="Made">${dateTime(t.createdAt)}</td>
            <td data-label="Last used">${t.lastUsedAt ? dateTime(t.lastUsedAt) : 'never'}</td>
            <td>${t.revokedAt ? null : html`<button type="button" class="danger" disabled=${!!revoke.busy} aria-label=${`Revoke ${t.name}`}
              onClick=${() => setAsked(t)}>Revoke</button>`}</td>
          </tr>`)}</tbody>
        </table>`}
      <p role="status" class="small ok-text">${said}</p>
      ${revoke.error ? html`<${ErrorBanner} error=${revoke.error} />` : null}
    </section>
    <form class="card stack" onSubmit=${submit} noValidate aria-labelledby="token-new-h">
      <header><h2 id="token-new-h">Make a token</h2></header>
      <${TextField} id="token-name" label="Name" value=${name} onInput=${setName} error=${create.fields.name} maxlength="100"
        hint="Says which script or tool uploads with it; shown beside each file it uploads." />
      <${StrayError} error=${create.error} known=${['name']} />
      <div class="row"><button type="submit" class="primary" disabled=${!!create.busy}>${create.busy ? 'Making…' : 'Make the token'}</button></div>
    </form>
    <${Confirm} danger id="token-revoke" open=${!!asked} title=${asked ? `Revoke ${asked.name}?` : ''} confirm="Revoke it" cancel="Keep it"
      onConfirm=${confirmed} onCancel=${() => setAsked(null)}>
      <p>Uploads with this token are refused from now on (401). The files it uploaded are kept; a revoked token cannot be made valid again.</p>
    <//>
  </div>`;
}
