// Numbers and dates as the console shows them: dates and times in the user's time zone (the one
// /api/auth/me names), numbers grouped in the browser's locale. A day the routes computed (a
// "YYYY-MM-DD" string) is shown as that day, never shifted through the browser's own zone.

let zone = 'UTC';
export function setTimeZone(tz) {
  zone = tz || 'UTC';
}
export function timeZone() {
  return zone;
}

const cache = new Map();
function formatter(key, options) {
  const k = `${zone}|${key}`;
  if (!cache.has(k)) cache.set(k, new Intl.DateTimeFormat(undefined, { timeZone: zone, ...options }));
  return cache.get(k);
}

// An instant (ISO 8601 with offset) → "27 Nov 2026, 09:14" in the user's zone.
export function dateTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return formatter('dt', { dateStyle: 'medium', timeStyle: 'short' }).format(d);
}

// An instant → "09:14" in the user's zone.
export function time(iso) {
  if (!iso) return '—';
  return formatter('t', { timeStyle: 'short' }).format(new Date(iso));
}

// A calendar day the route computed ("2026-11-27") → "Fri 27 Nov" (no zone: it is a day already).
export function day(ymd, options = { weekday: 'short', day: 'numeric', month: 'short' }) {
  if (!ymd) return '—';
  const [y, m, d] = String(ymd).slice(0, 10).split('-').map(Number);
  return new Intl.DateTimeFormat(undefined, { timeZone: 'UTC', ...options }).format(new Date(Date.UTC(y, m - 1, d)));
}

// "2026-11" or "2026-11-01" → "Nov 2026".
export function month(ym) {
  return day(`${String(ym).slice(0, 7)}-01`, { month: 'short', year: 'numeric' });
}

// How long ago an instant was: "3 min ago", "2 h ago", "4 d ago".
export function ago(iso, now = Date.now()) {
  if (!iso) return 'never';
  const s = Math.round((now - new Date(iso).getTime()) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

const numbers = new Map();
export function number(value, digits = 0) {
  if (value === null || value === undefined || Number.isNaN(Number(value))) return '—';
  if (!numbers.has(digits)) {
    numbers.set(digits, new Intl.NumberFormat(undefined, { minimumFractionDigits: digits, maximumFractionDigits: digits }));
  }
  return numbers.get(digits).format(Number(value));
}

// A signed change: "+3", "−2", "0".
export function signed(value, digits = 0) {
  if (value === null || value === undefined) return '—';
  const n = Number(value);
  if (n > 0) return `+${number(n, digits)}`;
  if (n < 0) return `−${number(-n, digits)}`;
  return number(0, digits);
}

export function money(value, currency) {
  if (value === null || value === undefined) return '—';
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency || 'USD', maximumFractionDigits: 0 })
      .format(Number(value));
  } catch {
    return number(value);
  }
}

// A figure in few characters, for a chart's axis: "45K", "1.2M".
export function compact(value) {
  if (value === null || value === undefined) return '—';
  return new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 }).format(Number(value));
}
