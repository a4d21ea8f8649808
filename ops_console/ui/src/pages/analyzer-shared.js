// What the analyzer's pages share: the periods the routes take, the statuses' tones, and the
// cost gate as a person meets it (README "Ticket analyzer", cost guards), shared by
// the ticket list's analyse and the reports' request: a request estimated above the threshold is a
// 409 whose estimate, threshold and day's total are shown in a confirmation that sends it again
// with `confirmCost: true`; a day's total at the limit is a 429, shown as a block with that total;
// a day's total past the warning line comes back as the 202's `cost.warning`, shown beside the
// result. Costs are the route's figures in the model's currency units; the day is UTC.
//
//   const gate = useCostGate((confirmCost) => api.post('/api/analyzer/analyze', { ticketIds, confirmCost }));
//   <button onClick=${() => gate.run()}>Analyse</button>
//   <${CostGate} gate=${gate} what="this analysis" action="Analyse" />
import { html, useState } from '../lib/html.js';
import { number } from '../lib/format.js';
import { Confirm } from '../components/confirm.js';
import { ErrorBanner } from '../components/messages.js';

// A cost as the routes give it (rounded to a hundredth of a cent): "0.0123" under one unit,
// "51.25" from one up.
export const cost = (v) => (v === null || v === undefined ? '—' : number(v, Math.abs(Number(v)) >= 1 ? 2 : 4));

// The routes' periods (calendar ones in the user's zone, weeks from Monday).
export const PERIODS = [
  { value: 'all', label: 'All time' }, { value: 'today', label: 'Today' }, { value: 'yesterday', label: 'Yesterday' },
  { value: 'this week', label: 'This week' }, { value: 'last week', label: 'Last week' },
  { value: '30d', label: 'Last 30 days' }, { value: '60d', label: 'Last 60 days' },
];

// A job's, an analysis's or a report's status → its badge's tone.
export const STATUS_TONE = { succeeded: 'ok', failed: 'down', queued: 'neutral', running: 'warn', pending: 'neutral' };

export function useCostGate(send, onDone) {
  const [state, setState] = useState({ busy: false, error: null, confirm: null, blocked: null, result: null });
  const run = async (confirmCost = false) => {
    setState((s) => ({ ...s, busy: true, error: null, blocked: null, confirm: null, result: confirmCost ? s.result : null }));
    try {
      const result = await send(confirmCost);
      setState({ busy: false, error: null, confirm: null, blocked: null, result });
      onDone?.(result);
    } catch (error) {
      const p = error.problem || {};
      if (error.status === 409 && p.confirmField) setState((s) => ({ ...s, busy: false, confirm: p }));
      else if (error.status === 429 && p.limit !== undefined) setState((s) => ({ ...s, busy: false, blocked: p }));
      else setState((s) => ({ ...s, busy: false, error }));
    }
  };
  return { ...state, run, cancel: () => setState((s) => ({ ...s, confirm: null })) };
}

export function CostGate({ gate, what, action }) {
  const c = gate.confirm;
  const b = gate.blocked;
  const warning = gate.result?.cost?.warning;
  return html`
    <${Confirm} open=${!!c} title=${`Confirm the cost of ${what}`} confirm=${`${action}: about ${cost(c?.estimate)}`}
      busy=${gate.busy} onConfirm=${() => gate.run(true)} onCancel=${gate.cancel}>
      <p>It is estimated at <strong data-testid="confirm-estimate">${cost(c?.estimate)}</strong>, above the
        ${' '}${cost(c?.threshold)} that needs a confirmation. Today's model spend so far (UTC day):
        ${' '}<strong data-testid="confirm-day-total">${cost(c?.dayTotal)}</strong>.</p>
      <p class="muted">Nothing is queued unless you confirm.</p>
    <//>
    ${b ? html`<div class="banner error" role="alert" data-testid="cost-blocked"><div>
        <strong>Refused: today's model spend has reached the daily limit.</strong>
        <span> Spent today (UTC): <strong>${cost(b.dayTotal)}</strong> of a limit of ${cost(b.limit)}; this request was
          estimated at ${cost(b.estimate)}. Nothing was queued; an administrator can raise or override the limit.</span>
      </div></div>` : null}
    ${warning ? html`<div class="banner warn" role="status" data-testid="cost-warning"><div>
        <strong>Spend warning:</strong> ${warning.charAt(0).toUpperCase()}${warning.slice(1)}.
        <span class="muted"> (Today is the UTC day.)</span></div></div>` : null}
    ${gate.error ? html`<${ErrorBanner} error=${gate.error} what="the language model" />` : null}`;
}
