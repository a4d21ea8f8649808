// A text input with a list of choices that narrows as one types (the ARIA 1.2 combobox pattern,
// https://www.w3.org/WAI/ARIA/apg/patterns/combobox/): ↓ and ↑ move through the list, Enter takes
// the highlighted choice, Escape closes the list; a screen reader hears the highlighted option
// (aria-activedescendant) and how many choices match. The text is the value: a name that is not in
// the list is sent as typed, and the route says what is wrong with it.
//
//   <${Combobox} id="tz" options=${zones} value=${text} onChange=${setText}
//      describedBy="tz-hint" invalid=${!!fields.timezone} noun="zones" />
import { html, useEffect, useMemo, useState } from '../lib/html.js';

const SHOWN = 100; // options rendered at once; more matches ask for a narrower search

// "new york" → America/New_York, "us east" → US/Eastern: every word of the search (split at
// spaces, "_" and "/") is in the name; names with a part that starts with the first word first.
export function filterOptions(options, search) {
  const words = search.toLowerCase().split(/[\s_/]+/).filter(Boolean);
  if (!words.length) return options;
  const hits = options.filter((o) => {
    const name = o.toLowerCase();
    return words.every((w) => name.includes(w));
  });
  const leads = (o) => o.toLowerCase().split(/[_/]/).some((part) => part.startsWith(words[0]));
  return [...hits.filter(leads), ...hits.filter((o) => !leads(o))];
}

export function Combobox({ id, options, value, onChange, describedBy, invalid, noun = 'choices', placeholder }) {
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  // the list shows every choice while the text is one of them (to browse from it), else the matches
  const [search, setSearch] = useState('');
  const matches = useMemo(() => filterOptions(options, search), [options, search]);
  const shown = matches.slice(0, SHOWN);
  const listId = `${id}-list`;
  const optionId = (i) => `${id}-opt-${i}`;

  useEffect(() => {
    if (!open || active < 0) return;
    document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
  }, [open, active]);

  const choose = (name) => {
    onChange(name);
    setSearch('');
    setOpen(false);
    setActive(-1);
  };
  const openAt = (index) => {
    setOpen(true);
    setActive(index);
  };

  const onKeyDown = (e) => {
    if (e.altKey && e.key === 'ArrowDown') {
      e.preventDefault();
      openAt(-1);
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      if (!open) openAt(Math.max(0, shown.indexOf(value)));
      else setActive(Math.min(active + 1, shown.length - 1));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      if (!open) openAt(Math.max(0, shown.indexOf(value)));
      else setActive(Math.max(active - 1, 0));
    } else if (e.key === 'Enter' && open && active >= 0 && shown[active]) {
      e.preventDefault(); // takes the choice; the next Enter submits the form
      choose(shown[active]);
    } else if (e.key === 'Escape' && open) {
      e.preventDefault();
      setOpen(false);
      setActive(-1);
    }
  };

  const count = matches.length === 0 ? `No ${noun} match.`
    : matches.length === 1 ? `1 of the ${noun} matches.`
    : `${matches.length} ${noun} match${matches.length > shown.length ? `; the first ${shown.length} are listed` : ''}.`;

  return html`<div class="combobox">
    <input id=${id} type="text" role="combobox" autocomplete="off" spellcheck="false" value=${value}
      placeholder=${placeholder} aria-autocomplete="list" aria-expanded=${open ? 'true' : 'false'} aria-controls=${listId}
      aria-activedescendant=${open && active >= 0 ? optionId(active) : null}
      aria-invalid=${invalid ? 'true' : null} aria-describedby=${describedBy}
      onInput=${(e) => { onChange(e.currentTarget.value); setSearch(e.currentTarget.value); openAt(-1); }}
      onKeyDown=${onKeyDown} onBlur=${() => { setOpen(false); setActive(-1); }} />
    <ul id=${listId} role="listbox" aria-label=${noun} class="combobox-list" hidden=${!open || !shown.length}>
      ${shown.map((name, i) => html`<li key=${name} id=${optionId(i)} role="option" aria-selected=${i === active ? 'true' : 'false'}
        class=${name === value ? 'current' : ''}
        onMouseDown=${(e) => { e.preventDefault(); choose(name); }}>${name}</li>`)}
    </ul>
    <div class="visually-hidden" role="status">${open ? count : ''}</div>
  </div>`;
}
