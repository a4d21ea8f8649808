// A date-time input in the user's zone (lib/format.js timeZone()), not the browser's: the value a
// <input type="datetime-local"> shows for an instant, and the instant a typed value means there.
//   toLocalInput('2026-11-27T09:00:00Z') → '2026-11-27T14:45' in Asia/Kathmandu
//   fromLocalInput('2026-11-27T14:45') → '2026-11-27T09:00:00.000Z'
import { timeZone } from '../lib/format.js';

function partsAt(ms, zone) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit',
  }).formatToParts(new Date(ms));
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
  return { y: +p.year, mo: +p.month, d: +p.day, h: +p.hour, mi: +p.minute };
}

export function toLocalInput(iso, zone = timeZone()) {
  const p = partsAt(new Date(iso).getTime(), zone);
  const two = (n) => String(n).padStart(2, '0');
  return `${p.y}-${two(p.mo)}-${two(p.d)}T${two(p.h)}:${two(p.mi)}`;
}

// null for a value that is not "YYYY-MM-DDTHH:MM".
export function fromLocalInput(value, zone = timeZone()) {
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)/.exec(value || '');
  if (!m) return null;
  const wall = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5]);
  let at = wall;
  for (let i = 0; i < 3; i++) { // the zone's offset at the guess, corrected until it holds
    const p = partsAt(at, zone);
    const shown = Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi);
    if (shown === wall) break;
    at += wall - shown;
  }
  return new Date(at).toISOString();
}
