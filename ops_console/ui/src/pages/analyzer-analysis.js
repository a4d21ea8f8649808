// One analysis (#/analyzer/analysis?id=…, GET /api/analyzer/analyses/{id}): the feed row and what
// only the detail shows (sentiment, confidence, next steps, review reasons, documentation
// references, model, tokens, cost); its stages with timing, tokens and cost, which live in its
// pipeline run (output_data.stages), readable by administrators only
// (GET /api/admin/pipeline-executions?pipeline_id=1), and its traces, which the route gives to
// administrators only; the ticket's other analyses (GET /api/analyzer/analyses?ticketId=); and
// sharing it by e-mail (POST /api/analyzer/analyses/{id}/share), where `emailSent: false` is a
// warning beside the recorded share, not an error.
import { html, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime, number, time } from '../lib/format.js';
import { useResource } from '../components/resource.js';
import { Empty, ErrorBanner, FieldError, Pending } from '../components/messages.js';
import { TableWrap } from '../components/table.js';
import { STATUS_TONE, cost } from './analyzer-shared.js';

const TICKET_ANALYSIS_PIPELINE = 1;
const EXECUTIONS_LIMIT = 500; // the route's maximum

function Stages({ executionId }) {
  const runs = useResource(executionId ? `/api/admin/pipeline-executions?pipeline_id=${TICKET_ANALYSIS_PIPELINE}&limit=${EXECUTIONS_LIMIT}` : null);
  if (!executionId) return html`<${Empty}>This analysis names no pipeline run.<//>`;
  if (runs.data === undefined) return html`<${Pending} resource=${runs} label="stages" />`;
  const run = (runs.data.items || []).find((r) => r.id === executionId);
  const stages = run?.output_data?.stages || [];
  if (!run) return html`<${Empty}>Run ${executionId} is not among the latest ${EXECUTIONS_LIMIT} runs.<//>`;
  if (!stages.length) return html`<${Empty}>The run recorded no stage.<//>`;
  return html`<${TableWrap} label="Stages of the run"><table class="stack-on-phone stages">
    <caption class="visually-hidden">The run's stages, in order</caption>
    <thead><tr><th scope="col">Stage</th><th scope="col">Status</th><th scope="col">Started</th>
      <th scope="col" class="num">Duration</th><th scope="col" class="num">Prompt tokens</th>
      <th scope="col" class="num">Completion tokens</th><th scope="col" class="num">Cost</th><th scope="col">Model</th></tr></thead>
    <tbody>${stages.map((s, i) => html`<tr key=${i} data-stage=${s.name}>
      <th scope="row">${s.name}</th>
      <td data-label="Status"><span class=${`badge ${STATUS_TONE[s.status] || 'neutral'}`}>${s.status}</span>
        ${s.error ? html`<div class="error-text">${s.error}</div>` : null}</td>
      <td data-label="Started"><time datetime=${s.startedAt}>${time(s.startedAt)}</time></td>
      <td data-label="Duration" class="num">${number(s.durationMs)} ms</td>
      <td data-label="Prompt tokens" class="num">${number(s.promptTokens)}</td>
      <td data-label="Completion tokens" class="num">${number(s.completionTokens)}</td>
      <td data-label="Cost" class="num">${cost(s.cost)}</td>
      <td data-label="Model">${s.model || '—'}</td>
    </tr>`)}</tbody>
  </table><//>
  <p class="muted small">Run ${run.id}: ${run.status}, started ${dateTime(run.started_at)}, ${number(run.duration_ms)} ms in all.</p>`;
}

function Traces({ traces }) {
  if (!traces?.length) return html`<${Empty}>No trace was kept.<//>`;
  return html`<div class="stack">${traces.map((t, i) => html`<details class="trace" key=${i}>
    <summary><strong>${t.stage}</strong> <span class="muted">${t.model || (t.error ? 'failed' : '')}</span></summary>
    <h4>Instructions</h4><pre>${t.system}</pre>
    ${t.reply ? html`<h4>Reply</h4><pre>${typeof t.reply === 'string' ? t.reply : JSON.stringify(t.reply, null, 2)}</pre>` : null}
    ${t.error ? html`<h4>Error</h4><pre class="error-text">${t.error}</pre>` : null}
  </details>`)}</div>`;
}

// "a@x.example, b@y.example" or one per line → the list the route takes.
const addresses = (text) => text.split(/[\s,;]+/).map((s) => s.trim()).filter(Boolean);

function Share({ id }) {
  const [form, setForm] = useState({ recipients: '', message: '' });
  const [state, setState] = useState({ busy: false, error: null, result: null });
  const send = async (e) => {
    e.preventDefault();
    setState({ busy: true, error: null, result: null });
    const body = { recipients: addresses(form.recipients) };
    if (form.message.trim()) body.message = form.message.trim();
    try {
      const result = await api.post(`/api/analyzer/analyses/${id}/share`, body);
      setState({ busy: false, error: null, result });
    } catch (error) {
      setState({ busy: false, error, result: null });
    }
  };
  const all = state.error?.status === 400 ? state.error.fields : {};
  // "recipients" or one of its items ("recipients[1]"), under the one input
  const recipient = Object.entries(all).find(([k]) => k.startsWith('recipients'));
  const fields = { recipients: recipient && (recipient[0] === 'recipients' ? recipient[1] : `${recipient[0].replace('recipients', 'address ')}: ${recipient[1]}`), message: all.message };
  const r = state.result;
  const stray = state.error && !fields.recipients && !fields.message;
  return html`<section class="card" aria-labelledby="share-h">
    <header><h2 id="share-h">Share by e-mail</h2><span class="note">the summary and its classification; never traces or reasons</span></header>
    <form class="stack" onSubmit=${send} noValidate>
      <div class="field">
        <label for="share-to">Recipients</label>
        <input id="share-to" type="text" inputmode="email" autocomplete="off" value=${form.recipients}
          aria-invalid=${fields.recipients ? 'true' : null}
          aria-describedby=${`share-to-hint${fields.recipients ? ' share-to-error' : ''}`}
          onInput=${(e) => setForm({ ...form, recipients: e.currentTarget.value })} />
        <div class="hint" id="share-to-hint">1 to 10 addresses, separated by commas or spaces.</div>
        <${FieldError} id="share-to-error" message=${fields.recipients} />
      </div>
      <div class="field">
        <label for="share-message">Message <span class="muted">(optional)</span></label>
        <textarea id="share-message" rows="3" maxlength="2000" value=${form.message}
          aria-invalid=${fields.message ? 'true' : null} aria-describedby=${fields.message ? 'share-message-error' : null}
          onInput=${(e) => setForm({ ...form, message: e.currentTarget.value })}></textarea>
        <${FieldError} id="share-message-error" message=${fields.message} />
      </div>
      ${stray ? html`<${ErrorBanner} error=${state.error} />` : null}
      <div class="row"><button type="submit" class="primary" disabled=${state.busy}>${state.busy ? 'Sharing…' : 'Share'}</button></div>
    </form>
    ${r && r.emailSent ? html`<div class="banner info" role="status" data-testid="share-result"><div>
        <strong>Sent</strong> to ${r.share.recipients.join(', ')} (${dateTime(r.share.createdAt)}).</div></div>` : null}
    ${r && !r.emailSent ? html`<div class="banner warn" role="status" data-testid="share-result"><div>
        <strong>The share is recorded, but no e-mail was sent.</strong>
        <span> ${r.share.recipients.join(', ')} will not hear of it by mail: ${r.emailError || 'no reason given'}.</span>
        <span class="muted"> Recorded ${dateTime(r.share.createdAt)}.</span></div></div>` : null}
  </section>`;
}

function Others({ ticketId, current }) {
  const list = useResource(`/api/analyzer/analyses?ticketId=${ticketId}`);
  if (list.data === undefined) return html`<${Pending} resource=${list} label="the ticket's analyses" />`;
  const others = list.data.filter((a) => a.id !== current);
  if (!others.length) return html`<${Empty}>No other analysis of this ticket.<//>`;
  return html`<ul class="list">${others.map((a) => html`<li key=${a.id}>
    <a href=${`#/analyzer/analysis?id=${a.id}`}>${a.completedAt ? dateTime(a.completedAt) : 'never completed'}</a>
    <span class=${`badge ${STATUS_TONE[a.status] || 'neutral'}`}>${a.status}</span>
    ${a.category ? html` <span class="muted">${a.category}</span>` : null}
  </li>`)}</ul>`;
}

function Facts({ a }) {
  const rows = [
    ['Category', a.category], ['Urgency', a.urgency], ['Sentiment', a.sentiment],
    ['Confidence', a.confidence === null || a.confidence === undefined ? null : number(Number(a.confidence) * 100) + ' %'],
    ['Needs review', a.needsReview ? 'yes' : 'no'], ['Model', a.model],
    ['Prompt tokens', number(a.promptTokens)], ['Completion tokens', number(a.completionTokens)], ['Cost', cost(a.cost)],
  ];
  return html`<dl class="facts" data-testid="facts">${rows.map(([k, v]) => html`<div key=${k}><dt>${k}</dt><dd>${v ?? '—'}</dd></div>`)}</dl>`;
}

const Items = ({ items, empty }) => (items?.length
  ? html`<ul class="bullets">${items.map((x, i) => html`<li key=${i}>${x}</li>`)}</ul>` : html`<p class="muted">${empty}</p>`);

export function AnalyzerAnalysis({ me, query }) {
  const id = Number(query.get('id'));
  const valid = Number.isInteger(id) && id > 0;
  const a = useResource(valid ? `/api/analyzer/analyses/${id}` : null);
  if (!valid) return html`<div class="stack"><h1>Analysis</h1><${Empty}>No analysis is named: open one from the <a href="#/analyzer">ticket list</a>.<//></div>`;
  if (a.data === undefined) return html`<div class="stack"><h1>Analysis ${id}</h1><${Pending} resource=${a} label="the analysis" lines=${5} /></div>`;
  const d = a.data;
  return html`<div class="stack analysis">
    <p><a href="#/analyzer">← Tickets</a></p>
    <div class="page-head">
      <h1>Analysis of <span class="mono">${d.ticketNumber || `ticket ${d.ticketId}`}</span></h1>
      <span class=${`badge ${STATUS_TONE[d.status] || 'neutral'}`}>${d.status}</span>
      <span class="note">${d.ticketTitle} · ${d.companyName || 'no company'} · ${d.completedAt ? `completed ${dateTime(d.completedAt)}` : 'never completed'}</span>
    </div>
    ${d.error ? html`<div class="banner error" role="alert"><div><strong>The analysis failed:</strong> ${d.error}</div></div>` : null}
    <section class="card" aria-labelledby="summary-h">
      <header><h2 id="summary-h">Summary</h2>${d.needsReview ? html`<span class="badge warn">needs review</span>` : null}</header>
      <p data-testid="summary">${d.summary || html`<span class="muted">No summary.</span>`}</p>
      <${Facts} a=${d} />
    </section>
    <div class="grid two">
      <section class="card" aria-labelledby="next-h"><header><h2 id="next-h">Next steps</h2></header>
        <${Items} items=${d.nextSteps} empty="None suggested." /></section>
      <section class="card" aria-labelledby="refs-h"><header><h2 id="refs-h">Documentation references</h2></header>
        <${Items} items=${d.documentationReferences} empty="None named." /></section>
      <section class="card" aria-labelledby="reasons-h"><header><h2 id="reasons-h">Review reasons</h2></header>
        <${Items} items=${d.reviewReasons} empty="None given." /></section>
      <section class="card" aria-labelledby="others-h"><header><h2 id="others-h">The ticket's other analyses</h2></header>
        <${Others} ticketId=${d.ticketId} current=${d.id} /></section>
    </div>
    <section class="card" aria-labelledby="stages-h">
      <header><h2 id="stages-h">Stages</h2><span class="note">timing, tokens and cost of each step</span></header>
      ${me.isAdmin ? html`<${Stages} executionId=${d.executionId} />`
        : html`<p class="muted" data-testid="stages-admin-only">The stage-by-stage figures are kept with the pipeline run, which only
            administrators may read; the totals above are this analysis's own.</p>`}
    </section>
    ${me.isAdmin ? html`<section class="card" aria-labelledby="traces-h">
      <header><h2 id="traces-h">Traces</h2><span class="note">the model's instructions and replies (administrators only)</span></header>
      <${Traces} traces=${d.traces} /></section>` : null}
    <${Share} id=${d.id} />
  </div>`;
}
