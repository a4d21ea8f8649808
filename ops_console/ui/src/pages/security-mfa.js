// MFA's flagged users across the parent and child Duo accounts (GET /api/mfa/users/flagged:
// {bypass: [user], disabled: [user], accounts: [{accountId, name, users, error?}],
// accountListError?, fetchedAt, cached}). Each account that failed is named above the lists (its
// users are missing from them) and in the accounts table with Duo's words; the others still answer.
// The route keeps its answer for a while (MFA_CACHE_SECONDS): the page says when it was read.
// Above them, the counts of GET /api/mfa/status ({bypass, disabled, accounts, failedAccounts});
// "Refresh" reads both again.
import { html } from '../lib/html.js';
import { dateTime, number } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { VendorError, VendorPending } from './security-common.js';

function Users({ id, title, about, users }) {
  return html`<section class="card" aria-labelledby=${id}>
    <header><h2 id=${id}>${title}</h2><span class="note">${about}</span><span class="badge neutral" data-testid=${`${id}-count`}>${number(users.length)}</span></header>
    ${!users.length ? html`<p class="state">No user.</p>` : html`<table class="stack-on-phone mfa-users" aria-labelledby=${id}>
      <thead><tr><th scope="col">User</th><th scope="col">E-mail</th><th scope="col">Account</th><th scope="col">Enrolled</th>
        <th scope="col">Last login</th><th scope="col">Notes</th></tr></thead>
      <tbody>${users.map((u) => html`<tr key=${`${u.accountId}-${u.userId}`} data-user=${u.userId}>
        <td data-label="User" class="wrap"><strong>${u.user}</strong>${u.realname ? html` <span class="muted">${u.realname}</span>` : null}</td>
        <td data-label="E-mail" class="wrap">${u.email || '—'}</td>
        <td data-label="Account" class="wrap">${u.account || u.accountId || '—'}</td>
        <td data-label="Enrolled">${u.enrolled ? 'yes' : 'no'}</td>
        <td data-label="Last login">${u.lastLogin ? html`<time datetime=${u.lastLogin}>${dateTime(u.lastLogin)}</time>` : 'never'}</td>
        <td data-label="Notes" class="wrap">${u.notes || ''}</td>
      </tr>`)}</tbody>
    </table>`}
  </section>`;
}

function Counts({ status }) {
  const s = status.data;
  if (!s) return html`<${VendorPending} resource=${status} vendor="Duo" label="the counts" lines=${1} />`;
  return html`<dl class="facts" data-testid="mfa-status">
    <div><dt>On bypass</dt><dd data-count="bypass">${number(s.bypass)}</dd></div>
    <div><dt>Disabled</dt><dd data-count="disabled">${number(s.disabled)}</dd></div>
    <div><dt>Accounts</dt><dd data-count="accounts">${number(s.accounts)}</dd></div>
    <div><dt>Accounts that failed</dt><dd data-count="failedAccounts">${number(s.failedAccounts)}</dd></div>
  </dl>`;
}

// The child accounts Duo did not answer for, named where the reader starts: the lists below lack their users.
function FailedAccounts({ accounts }) {
  const failed = accounts.filter((a) => a.error);
  if (!failed.length) return null;
  const names = failed.map((a) => a.name || a.accountId || 'the parent');
  return html`<div class="banner warn" data-testid="failed-accounts"><div>
    <strong>Duo did not answer for ${failed.length === 1 ? `one account: ${names[0]}` : `${failed.length} accounts: ${names.join(', ')}`}.</strong>
    ${' '}${failed.length === 1 ? 'Its users are' : 'Their users are'} missing from the lists below; the other accounts' users are all there. Duo's words are in the accounts table.
  </div></div>`;
}

export function SecurityMfa() {
  const flagged = useResource('/api/mfa/users/flagged');
  const status = useResource('/api/mfa/status');
  const f = flagged.data;
  const refresh = () => { flagged.reload(); status.reload(); };
  return html`<div class="stack security">
    <div class="page-head"><h1>MFA: flagged users</h1><span class="note">Duo users on bypass or disabled, in every account</span>
      ${f ? html`<span class="note" data-testid="mfa-fetched">read from Duo ${dateTime(f.fetchedAt)}${f.cached ? ' (kept by the console: Duo is read again once the answer is older than its MFA_CACHE_SECONDS setting)' : ''}</span>` : null}
      <button type="button" class="link refresh" onClick=${refresh}>Refresh</button></div>
    <${Counts} status=${status} />
    ${!f ? html`<div class="card"><${VendorPending} resource=${flagged} vendor="Duo" label="flagged users" /></div>` : html`
      ${flagged.error ? html`<${VendorError} error=${flagged.error} vendor="Duo" onRetry=${flagged.reload} />` : null}
      ${f.accountListError ? html`<div class="banner error" role="alert"><div><strong>Duo did not list the child accounts.</strong> ${f.accountListError}
        Only the parent account's users are shown.</div></div>` : null}
      <${FailedAccounts} accounts=${f.accounts} />
      <${Users} id="bypass-h" title="Bypass" about="sign in without a second factor" users=${f.bypass} />
      <${Users} id="disabled-h" title="Disabled" about="may not sign in" users=${f.disabled} />
      <section class="card" aria-labelledby="accounts-h">
        <header><h2 id="accounts-h">Accounts</h2><span class="note">the parent and each child account read</span></header>
        ${!f.accounts.length ? html`<p class="state">No account was read.</p>` : html`<table class="stack-on-phone mfa-accounts" aria-labelledby="accounts-h">
          <thead><tr><th scope="col">Account</th><th scope="col" class="num">Users</th><th scope="col">State</th></tr></thead>
          <tbody>${f.accounts.map((a) => html`<tr key=${a.accountId || 'parent'} data-account=${a.accountId || ''}>
            <td data-label="Account" class="wrap">${a.name || a.accountId || 'parent'}</td>
            <td data-label="Users" class="num">${a.error ? '—' : number(a.users)}</td>
            <td data-label="State" class="wrap">${a.error ? html`<span class="badge down">failed</span> <span class="error-text">${typeof a.error === 'string' ? a.error : JSON.stringify(a.error)}</span>
              <span class="muted small">its users are missing above</span>` : html`<span class="badge ok">read</span>`}</td>
          </tr>`)}</tbody>
        </table>`}
      </section>`}
  </div>`;
}
