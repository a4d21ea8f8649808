// What the phishing pages share: analysing a ticket (POST /api/phishing/tickets/{ticket_id}/analyze),
// the verdicts' tones, and a classification in words.
import { html, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { number } from '../lib/format.js';
import { ErrorBanner } from '../components/messages.js';

export const VERDICT_TONE = { malicious: 'down', suspicious: 'warn', spam: 'neutral', benign: 'ok' };

export function Verdict({ c }) {
  if (!c) return html`<span class="muted">not classified</span>`;
  return html`<span class="row tight"><span class=${`badge ${VERDICT_TONE[c.verdict] || 'neutral'}`}>${c.verdict}</span>
    <span class="muted small">${number(Number(c.confidence) * 100)} % sure</span></span>`;
}

// Analyses one ticket; `onDone(answer)` gets the route's answer. A 400 or 404 about the ticket is
// said under the ticket's input; anything else is a banner.
export function useAnalyzeTicket(onDone) {
  const [state, setState] = useState({ busy: false, error: null, result: null });
  const analyze = async (ticketId) => {
    setState({ busy: true, error: null, result: null });
    try {
      const result = await api.post(`/api/phishing/tickets/${encodeURIComponent(ticketId)}/analyze`);
      setState({ busy: false, error: null, result });
      onDone?.(result);
    } catch (error) {
      setState({ busy: false, error, result: null });
    }
  };
  // the ticket's own problem: a bad id, no such ticket, not a phishing report
  const e = state.error;
  const fieldMessage = e && (e.status === 404 || e.status === 400)
    ? e.fields.ticket_id || (e.problem.detail || e.message) : null;
  return { ...state, analyze, fieldMessage, banner: e && !fieldMessage ? e : null };
}

export function AnalyzeOutcome({ state }) {
  const r = state.result;
  return html`${state.banner ? html`<${ErrorBanner} error=${state.banner} what="Reading the ticket's attachments" />` : null}
    ${r ? html`<div class="banner info" role="status" data-testid="analyze-result"><div>
      <strong>Ticket ${r.ticketId} analysed:</strong> ${r.messagesRead} ${r.messagesRead === 1 ? 'message' : 'messages'} read;
      ${r.campaignCreated ? ' a new campaign was opened' : ' the report is in a campaign that existed'}.
      ${' '}<a href=${`#/phishing/campaign?id=${r.campaign.id}`}>Open the campaign</a></div></div>` : null}`;
}
