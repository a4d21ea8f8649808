// One phishing campaign (#/phishing/campaign?id=…, GET /api/phishing/campaigns/{id}): its reports,
// messages (headers, authentication results, an excerpt), indicators and classifications. A user
// with (phishing, analyze) may classify it (POST …/classify: a model call, confirmed first since it
// counts towards the analyzer's daily spend), close it (PATCH {status: closed}, confirmed first:
// related reports then start a new campaign), reopen it, and analyse a report's ticket again;
// without the permission those buttons are not offered.
import { html, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime, number } from '../lib/format.js';
import { can } from '../lib/session.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, Pending } from '../components/messages.js';
import { Confirm } from '../components/confirm.js';
import { AnalyzeOutcome, VERDICT_TONE, Verdict, useAnalyzeTicket } from './phishing-shared.js';

const AUTH_TONE = { pass: 'ok', fail: 'down', softfail: 'warn', none: 'neutral', neutral: 'neutral' };

function Actions({ c, onChanged }) {
  const [asking, setAsking] = useState(null); // 'close' | 'classify'
  const [state, setState] = useState({ busy: null, error: null, done: null });
  const act = async (what) => {
    setAsking(null);
    setState({ busy: what, error: null, done: null });
    try {
      if (what === 'classify') {
        const k = await api.post(`/api/phishing/campaigns/${c.id}/classify`);
        setState({ busy: null, error: null, done: `Classified: ${k.verdict}, ${number(Number(k.confidence) * 100)} % sure.` });
      } else {
        const status = what === 'close' ? 'closed' : 'open';
        await api.patch(`/api/phishing/campaigns/${c.id}`, { status });
        setState({ busy: null, error: null, done: status === 'closed' ? 'The campaign is closed.' : 'The campaign is open again.' });
      }
      onChanged();
    } catch (error) {
      setState({ busy: null, error, done: null });
    }
  };
  const open = c.status === 'open';
  return html`<div class="card stack actions">
    <div class="row">
      <button type="button" class="primary" disabled=${!!state.busy} onClick=${() => setAsking('classify')}>
        ${state.busy === 'classify' ? 'Classifying…' : 'Classify'}</button>
      ${open ? html`<button type="button" class="danger" disabled=${!!state.busy} onClick=${() => setAsking('close')}>
          ${state.busy === 'close' ? 'Closing…' : 'Close the campaign'}</button>`
        : html`<button type="button" disabled=${!!state.busy} onClick=${() => act('reopen')}>
          ${state.busy === 'reopen' ? 'Reopening…' : 'Reopen the campaign'}</button>`}
      <span class="muted small" role="status">${state.done || ''}</span>
    </div>
    ${state.error ? html`<${ErrorBanner} error=${state.error} what="the language model" />` : null}
    <${Confirm} open=${asking === 'close'} title="Close this campaign?" confirm="Close it" danger
      onConfirm=${() => act('close')} onCancel=${() => setAsking(null)}>
      <p>It keeps its ${c.reports.length} ${c.reports.length === 1 ? 'report' : 'reports'}, but takes no new one: a related report
        analysed from now on starts a new campaign, and stays there if this one is reopened.</p>
    <//>
    <${Confirm} open=${asking === 'classify'} title="Classify with the language model?" confirm="Classify"
      onConfirm=${() => act('classify')} onCancel=${() => setAsking(null)}>
      <p>The campaign's evidence (its report count, subjects and most frequent indicators) goes to the model, whose verdict is
        stored. The call is a few hundred tokens and counts towards the analyzer's spend of the day.</p>
    <//>
  </div>`;
}

function Reports({ c, analyzable, onChanged }) {
  const again = useAnalyzeTicket(onChanged);
  return html`<section class="card" aria-labelledby="reports-h">
    <header><h2 id="reports-h">Reports</h2><span class="note">${c.reports.length}</span></header>
    ${!c.reports.length ? html`<${Empty}>No report.<//>` : html`<table class="stack-on-phone">
      <caption class="visually-hidden">The campaign's reports, oldest first</caption>
      <thead><tr><th scope="col">Ticket</th><th scope="col">Reported by</th><th scope="col">Analysed</th>
        ${analyzable ? html`<th scope="col"><span class="visually-hidden">Action</span></th>` : null}</tr></thead>
      <tbody>${c.reports.map((r) => html`<tr key=${r.id} data-report=${r.id}>
        <td data-label="Ticket"><span class="mono">${r.ticketNumber || r.ticketId}</span> ${r.title || ''}</td>
        <td data-label="Reported by" class="wrap">${r.requesterEmail || '—'}</td>
        <td data-label="Analysed"><time datetime=${r.analyzedAt}>${dateTime(r.analyzedAt)}</time></td>
        ${analyzable ? html`<td><button type="button" disabled=${again.busy}
          onClick=${() => again.analyze(r.ticketId)}>Analyse again<span class="visually-hidden">: ticket ${r.ticketNumber || r.ticketId}</span></button></td>` : null}
      </tr>`)}</tbody>
    </table>`}
    ${again.fieldMessage ? html`<div class="field-error" role="alert">${again.fieldMessage}</div>` : null}
    <${AnalyzeOutcome} state=${again} />
  </section>`;
}

function Message({ m }) {
  const auth = m.authentication || {};
  const from = m.from?.name ? `${m.from.name} <${m.from.address}>` : m.from?.address;
  return html`<li class="message" data-message=${m.id}>
    <div class="title">${m.subject || '(no subject)'}</div>
    <dl class="facts compact">
      <div><dt>From</dt><dd class="wrap">${from || '—'}</dd></div>
      ${m.replyTo ? html`<div><dt>Reply-To</dt><dd class="wrap">${m.replyTo}</dd></div>` : null}
      ${m.returnPath ? html`<div><dt>Return-Path</dt><dd class="wrap">${m.returnPath}</dd></div>` : null}
      <div><dt>Sent</dt><dd>${m.sentAt ? html`<time datetime=${m.sentAt}>${dateTime(m.sentAt)}</time>` : '—'}</dd></div>
      <div><dt>Authentication</dt><dd class="row tight">${['spf', 'dkim', 'dmarc'].map((k) => html`<span key=${k}
        class=${`badge ${AUTH_TONE[auth[k]] || 'neutral'}`}>${k.toUpperCase()} ${auth[k] || 'none'}</span>`)}</dd></div>
      <div><dt>Source</dt><dd>${m.source === 'attachment' ? `attachment ${m.fileName || ''}` : 'pasted headers'}</dd></div>
    </dl>
    <div class="meta"><span class="wrap mono">SHA-256 ${m.sha256}</span></div>
    ${m.bodyExcerpt ? html`<details><summary>Text excerpt</summary><pre class="excerpt">${m.bodyExcerpt}</pre></details>` : null}
  </li>`;
}

function Classifications({ list }) {
  if (!list.length) return html`<${Empty}>Not classified yet.<//>`;
  return html`<ul class="list">${list.map((k) => html`<li key=${k.id} data-classification=${k.id}>
    <div class="row"><${Verdict} c=${k} /><span class="muted small">${dateTime(k.createdAt)} · ${k.model || 'model unknown'}
      · ${number(k.promptTokens)} + ${number(k.completionTokens)} tokens</span></div>
    <ul class="bullets">${(k.reasons || []).map((r, i) => html`<li key=${i}>${r}</li>`)}</ul>
  </li>`)}</ul>`;
}

export function PhishingCampaign({ me, query }) {
  const id = query.get('id') || '';
  const c = useResource(id ? `/api/phishing/campaigns/${encodeURIComponent(id)}` : null);
  const analyzable = can(me, 'phishing', 'analyze');
  if (!id) return html`<div class="stack"><h1>Campaign</h1><${Empty}>No campaign is named: open one from the <a href="#/phishing">list</a>.<//></div>`;
  if (c.data === undefined) return html`<div class="stack"><h1>Campaign</h1><${Pending} resource=${c} label="the campaign" lines=${5} /></div>`;
  const d = c.data;
  const latest = d.classifications?.[0];
  return html`<div class="stack phishing">
    <p><a href="#/phishing">← Campaigns</a></p>
    <div class="page-head">
      <h1>Campaign <span class="mono small">${d.id.slice(0, 8)}</span></h1>
      <span class=${`badge ${d.status === 'open' ? 'warn' : 'neutral'}`} data-testid="campaign-status">${d.status}</span>
      ${latest ? html`<span class=${`badge ${VERDICT_TONE[latest.verdict] || 'neutral'}`}>${latest.verdict}</span>` : null}
    </div>
    ${c.error ? html`<${ErrorBanner} error=${c.error} onRetry=${c.reload} />` : null}
    <dl class="facts card">
      <div><dt>First seen</dt><dd>${dateTime(d.firstSeen)}</dd></div>
      <div><dt>Last seen</dt><dd>${dateTime(d.lastSeen)}</dd></div>
      <div><dt>Opened</dt><dd>${dateTime(d.createdAt)}</dd></div>
      <div><dt>First reported by</dt><dd class="wrap">${d.requesterEmail || '—'}</dd></div>
    </dl>
    ${analyzable ? html`<${Actions} c=${d} onChanged=${c.reload} />` : null}
    <section class="card" aria-labelledby="class-h">
      <header><h2 id="class-h">Classifications</h2><span class="note">newest first</span></header>
      <${Classifications} list=${d.classifications || []} />
    </section>
    <${Reports} c=${d} analyzable=${analyzable} onChanged=${c.reload} />
    <section class="card" aria-labelledby="messages-h">
      <header><h2 id="messages-h">Messages</h2><span class="note">${d.messages.length}</span></header>
      ${d.messages.length ? html`<ul class="list">${d.messages.map((m) => html`<${Message} key=${m.id} m=${m} />`)}</ul>` : html`<${Empty}>No message.<//>`}
    </section>
    <section class="card" aria-labelledby="ind-h">
      <header><h2 id="ind-h">Indicators</h2><span class="note">what its messages share</span></header>
      ${d.indicators.length ? html`<table class="stack-on-phone indicators">
        <caption class="visually-hidden">Indicators by kind, with the number of messages that carry each</caption>
        <thead><tr><th scope="col">Kind</th><th scope="col">Value</th><th scope="col" class="num">Messages</th></tr></thead>
        <tbody>${d.indicators.map((i) => html`<tr key=${`${i.kind}|${i.value}`}>
          <td data-label="Kind">${i.kind.replaceAll('_', ' ')}</td>
          <td data-label="Value" class="wrap mono">${i.value}</td>
          <td data-label="Messages" class="num">${i.messages}</td>
        </tr>`)}</tbody>
      </table>` : html`<${Empty}>No indicator.<//>`}
    </section>
  </div>`;
}
