// A cursor-paged list that grows as the reader scrolls: the mobile tickets and the analyzer feed
// (GET /api/mobile/tickets, GET /api/mobile/analyzer/feed: {items, hasMore, nextCursor, limit}).
// The next page is asked for when the sentinel under the list comes into view
// (IntersectionObserver) or when the visible "Load more" button is pressed (for the keyboard),
// always with the route's own nextCursor; a change of `path` (its filters) starts again.
//
//   const list = useCursorList(withQuery('/api/mobile/tickets', filters));   // lib/api.js
//   <${EndlessList} list=${list} noun="tickets" empty="No ticket matches these filters."
//      item=${(t) => html`<${Ticket} t=${t} />`} itemKey=${(t) => t.id} />
import { html, useCallback, useEffect, useRef, useState } from '../lib/html.js';
import { api } from '../lib/api.js';
import { ErrorBanner, Pending } from './messages.js';

const START = { items: [], next: null, hasMore: true, loading: true, error: null, pages: 0 };

export function useCursorList(path) {
  const [state, setState] = useState(START);
  const generation = useRef(0); // a page asked for another path is dropped
  const busy = useRef(false);
  const cursor = useRef({ next: null, hasMore: true });

  const load = useCallback(async (first) => {
    if (busy.current && !first) return;
    if (!first && !cursor.current.hasMore) return;
    const mine = first ? ++generation.current : generation.current;
    busy.current = true;
    setState((s) => (first ? START : { ...s, loading: true, error: null }));
    const next = first ? null : cursor.current.next;
    const url = next ? `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(next)}` : path;
    try {
      const page = await api.get(url);
      if (mine !== generation.current) return;
      cursor.current = { next: page.nextCursor, hasMore: !!page.hasMore && !!page.nextCursor };
      setState((s) => ({
        items: first ? page.items : [...s.items, ...page.items],
        next: page.nextCursor, hasMore: cursor.current.hasMore, loading: false, error: null, pages: (first ? 0 : s.pages) + 1,
      }));
    } catch (error) {
      if (mine === generation.current) setState((s) => ({ ...s, loading: false, error }));
    } finally {
      if (mine === generation.current) busy.current = false;
    }
  }, [path]);

  useEffect(() => {
    cursor.current = { next: null, hasMore: true };
    busy.current = false;
    load(true);
  }, [load]);

  return { ...state, more: () => load(false), reload: () => load(state.pages === 0) };
}

// Asks for the next page while the sentinel is in view; observed again after each page, so a
// screen taller than the list keeps filling it. Not while the "Load more" button has the focus:
// a keyboard user who reached it loads the next page with it, and nothing moves under them before.
function Sentinel({ list, button }) {
  const ref = useRef(null);
  const { more, hasMore, loading, error } = list;
  useEffect(() => {
    const el = ref.current;
    if (!el || !hasMore || loading || error || typeof IntersectionObserver === 'undefined') return undefined;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && document.activeElement !== button.current) more();
    }, { rootMargin: '0px 0px 300px 0px' });
    observer.observe(el);
    return () => observer.disconnect();
  }, [hasMore, loading, error, list.items.length]);
  return html`<div ref=${ref} class="sentinel" aria-hidden="true"></div>`;
}

export function EndlessList({ list, noun, empty, item, itemKey, label }) {
  const { items, loading, error, hasMore, pages } = list;
  const button = useRef(null);
  if (pages === 0 && error) return html`<${ErrorBanner} error=${error} onRetry=${list.reload} />`;
  if (pages === 0) return html`<${Pending} resource=${{ error: null }} label=${noun} lines=${4} />`;
  const count = `${items.length} ${noun}`;
  return html`<div class="endless">
    ${items.length ? html`<ul class="list card" aria-label=${label || noun}>
      ${items.map((x) => html`<li key=${itemKey(x)}>${item(x)}</li>`)}
    </ul>` : html`<p class="state">${empty}</p>`}
    <${Sentinel} list=${list} button=${button} />
    ${error ? html`<${ErrorBanner} error=${error} onRetry=${list.more} />` : null}
    <div class="list-foot">
      <span role="status" class="muted">${items.length ? (hasMore ? `${count} shown, more below` : `${count}, all shown`) : ''}</span>
      ${hasMore && !error ? html`<button type="button" ref=${button} onClick=${list.more} aria-busy=${loading ? 'true' : 'false'}>
        ${loading ? 'Loading…' : 'Load more'}</button>` : null}
    </div>
  </div>`;
}
