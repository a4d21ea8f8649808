// The analyzer feed (GET /api/mobile/analyzer/feed: {items, hasMore, nextCursor, limit}): each
// ticket's latest analysis, newest first, as the route's twelve fields, with endless scrolling
// that follows nextCursor (components/endless.js).
import { html } from '../lib/html.js';
import { EndlessList, useCursorList } from '../components/endless.js';
import { When } from './overview.js';

function urgencyTone(urgency) {
  if (/critical|urgent/i.test(urgency || '')) return 'down';
  if (/high/i.test(urgency || '')) return 'warn';
  return 'neutral';
}

function Analysis({ a }) {
  const failed = a.status === 'failed';
  return html`<div class="analysis" data-analysis=${a.id}>
    <div class="row tight">
      <span class="mono">${a.ticketNumber || `ticket ${a.ticketId}`}</span>
      ${failed ? html`<span class="badge down">analysis failed</span>` : null}
      ${a.urgency ? html`<span class=${`badge ${urgencyTone(a.urgency)}`}>urgency ${a.urgency}</span>` : null}
      ${a.needsReview ? html`<span class="badge warn">needs review</span>` : null}
    </div>
    <div class="title">${a.ticketTitle || '(ticket without a title)'}</div>
    ${a.summary ? html`<p class="summary">${a.summary}</p>`
      : failed ? html`<p class="muted">The analysis did not finish; no summary.</p>` : null}
    <div class="meta">
      <span>${a.companyName || 'No company'}</span>
      ${a.category ? html`<span>${a.category}</span>` : null}
      <span>${a.completedAt ? html`<${When} iso=${a.completedAt} />` : 'not finished'}</span>
    </div>
  </div>`;
}

export function MobileFeed() {
  const list = useCursorList('/api/mobile/analyzer/feed');
  return html`<div class="stack">
    <div class="page-head"><h1>Analyzer feed</h1><span class="note">each ticket's latest analysis, newest first</span></div>
    <${EndlessList} list=${list} noun="analyses" label="Analyses" itemKey=${(a) => a.id}
      empty="No ticket has been analysed yet." item=${(a) => html`<${Analysis} a=${a} />`} />
  </div>`;
}
