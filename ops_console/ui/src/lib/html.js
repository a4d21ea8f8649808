// Components are Preact functions written with htm's tagged templates: no build step, no JSX.
//   import { html, useState } from '../lib/html.js';
//   export function Hello({ name }) { return html`<p>Hello, ${name}</p>`; }
import { h, render } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import htm from 'htm';

export const html = htm.bind(h);
export { render, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState };
