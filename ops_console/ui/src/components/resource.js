// A route's document as a page uses it: loading, the data, or the error; reloaded on demand, and
// every `refreshMs` while the tab is visible (a hidden tab asks for nothing, and catches up when
// it is shown again).
//
//   const overview = useResource('/api/dashboard/overview', { refreshMs: 60000 });
//   if (!overview.data) return html`<${Pending} resource=${overview} />`;
import { api } from '../lib/api.js';
import { useCallback, useEffect, useRef, useState } from '../lib/html.js';

export function useResource(path, { refreshMs = 0 } = {}) {
  const [state, setState] = useState({ data: undefined, error: null, loading: true, at: 0 });
  const generation = useRef(0);

  const load = useCallback(async () => {
    if (!path) return;
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await api.get(path);
      if (mine === generation.current) setState({ data, error: null, loading: false, at: Date.now() });
    } catch (error) {
      // a refresh that fails keeps the figures shown, with the error beside them
      if (mine === generation.current) setState((s) => ({ ...s, error, loading: false }));
    }
  }, [path]);

  useEffect(() => {
    setState({ data: undefined, error: null, loading: true, at: 0 });
    load();
  }, [load]);

  useEffect(() => {
    if (!refreshMs) return undefined;
    let timer = null;
    const schedule = () => {
      clearInterval(timer);
      timer = document.hidden ? null : setInterval(load, refreshMs);
    };
    const visibility = () => {
      if (!document.hidden) load();
      schedule();
    };
    schedule();
    document.addEventListener('visibilitychange', visibility);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', visibility);
    };
  }, [load, refreshMs]);

  return { ...state, reload: load };
}
