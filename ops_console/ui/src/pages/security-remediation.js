// Mailbox remediation (POST /api/mailsec/mailbox-remediate): a search of one mailbox ({action:
// search, mailbox, query} → {mailbox, items: [{id, internetMessageId, subject, from, receivedAt,
// folderId}], count}), then the chosen messages moved to Deleted Items or deleted ({action: move |
// delete, mailbox, messageIds} → {mailbox, action, moved | deleted, results: [{id, ok, error}],
// auditId}) after a confirmation that says which, how many, and whether they can be recovered.
import { html, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime, number } from '../lib/format.js';
import { FieldError } from '../components/messages.js';
import { Confirm } from '../components/confirm.js';
import { VendorError } from './security-common.js';

const ACTIONS = {
  move: { verb: 'Move to Deleted Items', done: 'moved', title: (n, mb) => `Move ${n} ${n === 1 ? 'message' : 'messages'} of ${mb} to Deleted Items?`,
    what: 'They leave the folders they are in for Deleted Items, where the mailbox\u2019s owner (or you) can still recover them.' },
  delete: { verb: 'Delete', done: 'deleted', title: (n, mb) => `Delete ${n} ${n === 1 ? 'message' : 'messages'} from ${mb}?`,
    what: 'They are deleted from the mailbox: they no longer show in any folder, and the console cannot bring them back (an Exchange administrator can, from Recoverable Items, for a limited time).' },
};

export function SecurityRemediation() {
  const [mailbox, setMailbox] = useState('');
  const [queryText, setQueryText] = useState('');
  const [search, setSearch] = useState({ busy: false, error: null, result: null });
  const [chosen, setChosen] = useState([]);
  const [asking, setAsking] = useState(null); // 'move' | 'delete'
  const [act, setAct] = useState({ busy: false, error: null, result: null });

  const run = async (e) => {
    e?.preventDefault();
    setSearch((s) => ({ ...s, busy: true, error: null }));
    try {
      const result = await api.post('/api/mailsec/mailbox-remediate', { action: 'search', mailbox: mailbox.trim(), query: queryText.trim() });
      setSearch({ busy: false, error: null, result });
      setChosen([]);
    } catch (error) {
      setSearch({ busy: false, error, result: null });
    }
  };

  const apply = async () => {
    const action = asking;
    setAsking(null);
    setAct({ busy: true, error: null, result: null });
    try {
      const result = await api.post('/api/mailsec/mailbox-remediate', { action, mailbox: search.result.mailbox, messageIds: chosen });
      setAct({ busy: false, error: null, result });
      const gone = new Set(result.results.filter((x) => x.ok).map((x) => x.id));
      setSearch((s) => ({ ...s, result: { ...s.result, items: s.result.items.filter((m) => !gone.has(m.id)) } }));
      setChosen((c) => c.filter((id) => !gone.has(id)));
    } catch (error) {
      setAct({ busy: false, error, result: null });
    }
  };

  const fields = search.error?.status === 400 ? search.error.fields : {};
  const denied = search.error?.status === 403 && search.error.problem?.type?.includes('mailbox-access-denied');
  const mailboxError = fields.mailbox || (denied ? search.error.problem.detail : null);
  const stray = search.error && !mailboxError && !fields.query;
  const r = search.result;
  const all = r && r.items.length > 0 && chosen.length === r.items.length;
  const toggle = (id, on) => setChosen((c) => (on ? [...c.filter((x) => x !== id), id] : c.filter((x) => x !== id)));
  const failed = act.result ? act.result.results.filter((x) => !x.ok) : [];
  return html`<div class="stack security">
    <div class="page-head"><h1>Mailbox remediation</h1><span class="note">find messages in one mailbox, then move or delete them (Microsoft Graph)</span></div>
    <form class="card stack" onSubmit=${run} noValidate aria-labelledby="rem-h">
      <h2 id="rem-h">Search a mailbox</h2>
      <div class="grid form-grid">
        <div class="field">
          <label for="r-mailbox">Mailbox</label>
          <input id="r-mailbox" type="email" value=${mailbox} autocomplete="off" spellcheck="false" placeholder="name@example.org"
            aria-invalid=${mailboxError ? 'true' : null} aria-describedby=${mailboxError ? 'r-mailbox-error' : null}
            onInput=${(e) => setMailbox(e.currentTarget.value)} />
          <${FieldError} id="r-mailbox-error" message=${mailboxError} />
        </div>
        <div class="field">
          <label for="r-query">Search</label>
          <input id="r-query" type="text" value=${queryText} autocomplete="off" spellcheck="false" maxlength="200"
            placeholder="from:billing@example.org subject:invoice" aria-invalid=${fields.query ? 'true' : null}
            aria-describedby=${`r-query-hint${fields.query ? ' r-query-error' : ''}`} onInput=${(e) => setQueryText(e.currentTarget.value)} />
          <div class="hint" id="r-query-hint">KQL: <code>from:</code>, <code>subject:</code>, <code>body:</code>, or free text; every folder, at most 100 messages, newest first.</div>
          <${FieldError} id="r-query-error" message=${fields.query} />
        </div>
      </div>
      <div class="row"><button class="primary" type="submit" disabled=${search.busy}>${search.busy ? 'Searching…' : 'Search'}</button></div>
      ${stray ? html`<${VendorError} error=${search.error} vendor="The mail platform" />` : null}
    </form>
    ${r ? html`<section class="card stack" aria-labelledby="msgs-h">
      <header><h2 id="msgs-h">Messages in ${r.mailbox}</h2><span class="note" data-testid="rem-count">${number(r.count)} found</span></header>
      ${!r.items.length ? html`<p class="state">${r.count ? 'Every message found has been dealt with.' : 'No message matches this search.'}</p>` : html`
        <label class="check"><input type="checkbox" checked=${all} onChange=${(e) => setChosen(e.currentTarget.checked ? r.items.map((m) => m.id) : [])} /> Choose all ${number(r.items.length)}</label>
        <table class="stack-on-phone remediation" aria-labelledby="msgs-h">
          <thead><tr><th scope="col"><span class="visually-hidden">Chosen</span></th><th scope="col">Received</th><th scope="col">From</th><th scope="col">Subject</th></tr></thead>
          <tbody>${r.items.map((m) => html`<tr key=${m.id} data-message=${m.id}>
            <td data-label="Chosen"><input type="checkbox" checked=${chosen.includes(m.id)} aria-label=${`Choose “${m.subject || 'no subject'}” from ${m.from || 'unknown'}`}
              onChange=${(e) => toggle(m.id, e.currentTarget.checked)} /></td>
            <td data-label="Received"><time datetime=${m.receivedAt}>${dateTime(m.receivedAt)}</time></td>
            <td data-label="From" class="wrap">${m.from || '—'}</td>
            <td data-label="Subject" class="wrap">${m.subject || html`<span class="muted">(no subject)</span>`}</td>
          </tr>`)}</tbody>
        </table>
        <div class="row">
          <span class="muted" role="status">${number(chosen.length)} chosen</span>
          <button type="button" disabled=${!chosen.length || act.busy} onClick=${() => setAsking('move')}>${ACTIONS.move.verb}</button>
          <button type="button" class="danger" disabled=${!chosen.length || act.busy} onClick=${() => setAsking('delete')}>${ACTIONS.delete.verb}</button>
        </div>`}
      ${act.error ? html`<${VendorError} error=${act.error} vendor="The mail platform" />` : null}
      ${act.result ? html`<div class=${`banner ${failed.length ? 'warn' : 'info'}`} role="status" data-testid="rem-result"><div>
        <strong>${number(act.result[ACTIONS[act.result.action].done])} ${ACTIONS[act.result.action].done}</strong>${failed.length ? `, ${number(failed.length)} not` : ''}
        <span class="muted"> (recorded as remediation ${act.result.auditId})</span>
        ${failed.length ? html`<ul>${failed.map((x) => html`<li key=${x.id}><code>${x.id.slice(0, 16)}…</code>: ${x.error}</li>`)}</ul>` : null}
      </div></div>` : null}
    </section>` : null}
    <${Confirm} danger open=${!!asking} title=${asking ? ACTIONS[asking].title(chosen.length, r?.mailbox) : ''}
      confirm=${asking === 'delete' ? `Delete ${chosen.length === 1 ? 'it' : `these ${chosen.length}`}` : `Move ${chosen.length === 1 ? 'it' : `these ${chosen.length}`}`}
      onConfirm=${apply} onCancel=${() => setAsking(null)}>
      ${asking ? html`<p>${ACTIONS[asking].what}</p><p>The console records who did it, the mailbox and the messages before it starts.</p>` : null}
    <//>
  </div>`;
}
