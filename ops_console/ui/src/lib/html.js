// Components are Preact functions written with htm's tagged templates: no build step, no JSX.
//   import { html, useState } from '../lib/html.js';
//   export function Hello({ name }) { return html`<p>Hello, ${name}</p>`; }
import { h, render } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import htm from 'htm';

export const html = htm.bind(h);
export { render, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState };

// Sets a form's state again from what the route says when `deps` change (a save answered, the URL's
// filters moved). Done before the next paint, in the same turn as the render that brought the new
// value: an effect would do it a frame later, over whatever was typed in between.
export function useResetWith(reset, deps) {
  useLayoutEffect(reset, deps);
}
