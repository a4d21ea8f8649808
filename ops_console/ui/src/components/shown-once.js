// A credential the console shows this once (an agent's token and signing secret, an upload token,
// a channel's signing secret): the route keeps only its hash or keeps it write-only, so the page
// says so and keeps it on screen until the person says they have kept it.
//
//   <${ShownOnce} testid="token" title="The upload token, shown this once." values=${[{ label: 'Token', value }]}
//      onDismiss=${() => setToken(null)}>Give it to the script that uploads.<//>
import { html } from '../lib/html.js';

export function ShownOnce({ title, values, children, onDismiss, testid }) {
  return html`<div class="banner warn shown-once" role="status" data-testid=${testid}>
    <div>
      <strong>${title}</strong> ${children}
      <dl class="secrets">${values.map((v) => html`<div key=${v.label}><dt>${v.label}</dt>
        <dd><code class="mono secret-value" data-secret=${v.label}>${v.value}</code></dd></div>`)}</dl>
    </div>
    <button type="button" onClick=${onDismiss}>I have kept it</button>
  </div>`;
}
