// The one way the UI talks to the console: the documented JSON routes, same origin, the session
// in its HttpOnly cookie (never readable here). A failure is an ApiError that carries the route's
// problem+json, so that a page shows the detail and each field's message next to its cause.
//
//   const overview = await api.get('/api/dashboard/overview');
//   await api.put('/api/me/theme', { theme: 'dark' });
//
// A 401 from any route but sign-in's own means the session ended: onSessionEnded() sends the
// user to sign-in with a message and, after it, back where they were (lib/session.js).

export class ApiError extends Error {
  // status 0: the console could not be reached (network, or it is down).
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `request failed (${status})`);
    this.status = status;
    this.problem = problem || {};
  }

  // The field errors of a 400, by field: { email: 'must be an e-mail address' }.
  get fields() {
    const out = {};
    for (const e of this.problem.errors || []) if (e && e.field) out[e.field] = e.message;
    return out;
  }

  // True for what a retry may cure: no answer, or 5xx.
  get transient() {
    return this.status === 0 || this.status >= 500;
  }
}

let sessionEnded = () => {};
export function onSessionEnded(callback) {
  sessionEnded = callback;
}

async function request(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, { title: 'Not reachable', detail: 'The console did not answer. Check the connection, then retry.' });
  }
  const type = res.headers.get('Content-Type') || '';
  let data = null;
  if (res.status !== 204 && res.status !== 304) {
    data = type.includes('json') ? await res.json().catch(() => null) : await res.text();
  }
  if (res.ok) return data;
  const problem = data && typeof data === 'object' ? data : { detail: `${res.status} ${res.statusText}` };
  if (res.status === 401 && !path.startsWith('/api/auth/')) sessionEnded(problem);
  throw new ApiError(res.status, problem);
}

export const api = {
  get: (path) => request('GET', path),
  post: (path, body) => request('POST', path, body),
  put: (path, body) => request('PUT', path, body),
  patch: (path, body) => request('PATCH', path, body),
  del: (path) => request('DELETE', path),
};

// "/api/mobile/tickets" + { status: [1, 8], mine: true, search: '' } → "/api/mobile/tickets?status=1&status=8&mine=true"
// (an empty or null value is left out; an array repeats its key).
export function withQuery(path, params) {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params || {})) {
    if (value === undefined || value === null || value === '') continue;
    for (const v of Array.isArray(value) ? value : [value]) q.append(key, String(v));
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
