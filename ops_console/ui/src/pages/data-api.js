// The API reference (issue 35): GET /openapi.json (docs/openapi.md), the console's OpenAPI 3.1
// document, rendered for a person to read. Operations are grouped by their first tag, in the
// document's tag order; each is a <details> (method, path, summary) whose body (description,
// security, parameters, request body, responses) is drawn only when opened, since the document
// has some 160 operations. A filter narrows them by path, summary, method or tag. Schemas show
// their nested properties; a `$ref` to #/components/schemas/… is shown by its name and expands,
// and a schema already open above it is named, not expanded again (the cycle guard). Our own
// page, not Redoc or Swagger UI: see ../README.md, "API reference".
import { html, useMemo, useState } from '../lib/html.js';
import { useResource } from '../components/resource.js';
import { Empty, Pending } from '../components/messages.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const REF = '#/components/schemas/';
// a method's badge: reading, changing, removing
const TONES = { get: 'ok', head: 'ok', post: 'warn', put: 'warn', patch: 'warn', delete: 'down' };

// Every operation of the document, in path order: { key, method, path, op, pathItem }.
export function operations(doc) {
  const out = [];
  for (const [path, item] of Object.entries(doc.paths || {})) {
    for (const method of METHODS) {
      if (item[method]) out.push({ key: `${method.toUpperCase()} ${path}`, method, path, op: item[method], item });
    }
  }
  return out;
}

// A details whose content is drawn only once it is opened (and kept while it is open).
function Lazy({ summary, body, className, testid, op }) {
  const [open, setOpen] = useState(false);
  return html`<details class=${className} data-testid=${testid} data-op=${op} onToggle=${(e) => setOpen(e.currentTarget.open)}>
    <summary>${summary}</summary>
    ${open ? body() : null}
  </details>`;
}

const types = (s) => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

// A schema's own facts on one line: type, format, nullable, enum, limits, default.
function Facts({ s }) {
  const t = types(s).filter((x) => x !== 'null');
  const nullable = types(s).includes('null') || s.nullable === true;
  const limits = [
    ['minimum', '≥'], ['exclusiveMinimum', '>'], ['maximum', '≤'], ['exclusiveMaximum', '<'],
    ['minLength', 'length ≥'], ['maxLength', 'length ≤'], ['minItems', 'items ≥'], ['maxItems', 'items ≤'],
  ].filter(([k]) => typeof s[k] === 'number').map(([k, w]) => `${w} ${s[k]}`);
  return html`<span class="schema-facts">
    ${t.length ? html`<span class="mono">${t.join(' | ')}</span>` : null}
    ${s.format ? html` <span class="badge neutral">${s.format}</span>` : null}
    ${nullable ? html` <span class="badge neutral">nullable</span>` : null}
    ${limits.length ? html` <span class="muted small">${limits.join(', ')}</span>` : null}
    ${s.pattern ? html` <span class="muted small">pattern <code>${s.pattern}</code></span>` : null}
    ${s.default !== undefined ? html` <span class="muted small">default <code>${JSON.stringify(s.default)}</code></span>` : null}
    ${s.const !== undefined ? html` <span class="muted small">always <code>${JSON.stringify(s.const)}</code></span>` : null}
    ${s.enum ? html` <span class="small">one of ${s.enum.map((v, i) => html`${i ? ', ' : ''}<code>${JSON.stringify(v)}</code>`)}</span>` : null}
  </span>`;
}

// A schema, its properties nested. `seen`: the names of the $refs open above it.
export function Schema({ schema, doc, seen = [], named = false }) {
  if (!schema || typeof schema !== 'object') return html`<span class="muted small">any value</span>`;
  if (schema.$ref) {
    const name = schema.$ref.startsWith(REF) ? decodeURIComponent(schema.$ref.slice(REF.length)) : schema.$ref;
    const target = doc.components?.schemas?.[name];
    if (!target) return html`<span class="mono">${name}</span> <span class="muted small">(not in the document)</span>`;
    if (seen.includes(name)) return html`<span class="mono">${name}</span> <span class="muted small">(shown above: it contains itself)</span>`;
    return html`<${Lazy} className="schema-ref" body=${() => html`<${Schema} schema=${target} doc=${doc} seen=${[...seen, name]} named />`}
      summary=${html`<span class="mono">${name}</span>${target.description ? html` <span class="muted small">${target.description}</span>` : null}`} />`;
  }
  const alternatives = schema.oneOf || schema.anyOf;
  const props = schema.properties ? Object.entries(schema.properties) : [];
  const required = new Set(schema.required || []);
  const extra = schema.additionalProperties;
  return html`<div class="schema">
    <${Facts} s=${schema} />
    ${schema.title ? html` <strong class="small">${schema.title}</strong>` : null}
    ${schema.description && !named ? html`<div class="small">${schema.description}</div>` : null}
    ${alternatives ? html`<div class="small">${schema.oneOf ? 'one of' : 'any of'}:</div>
      <ol class="schema-props">${alternatives.map((a, i) => html`<li key=${i}><${Schema} schema=${a} doc=${doc} seen=${seen} /></li>`)}</ol>` : null}
    ${schema.allOf ? html`<div class="small">all of:</div>
      <ol class="schema-props">${schema.allOf.map((a, i) => html`<li key=${i}><${Schema} schema=${a} doc=${doc} seen=${seen} /></li>`)}</ol>` : null}
    ${schema.items ? html`<div class="small">items:</div><div class="schema-props"><${Schema} schema=${schema.items} doc=${doc} seen=${seen} /></div>` : null}
    ${props.length ? html`<ul class="schema-props" data-testid="properties">${props.map(([name, p]) => html`<li key=${name} data-property=${name}>
      <code class="wrap">${name}</code>${required.has(name) ? html` <span class="badge warn">required</span>` : null}
      <${Schema} schema=${p} doc=${doc} seen=${seen} />
    </li>`)}</ul>` : null}
    ${extra && typeof extra === 'object' ? html`<div class="small">other properties:</div><div class="schema-props"><${Schema} schema=${extra} doc=${doc} seen=${seen} /></div>` : null}
  </div>`;
}

// "agentToken" → "Agent token"; a cookie is the session, a header of apiKey a signature.
function schemeName(key, s) {
  if (s?.type === 'apiKey' && s.in === 'cookie') return `Session cookie (${s.name})`;
  if (s?.type === 'apiKey' && s.in === 'header') return `Signature (header ${s.name})`;
  const words = key.replace(/([A-Z])/g, ' $1').toLowerCase();
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}${s?.type === 'http' && s.scheme === 'bearer' ? ' (Authorization: Bearer)' : ''}`;
}

function Security({ op, doc }) {
  const requirements = op.security ?? doc.security ?? [];
  const schemes = doc.components?.securitySchemes || {};
  if (!requirements.length || requirements.every((r) => !Object.keys(r).length)) {
    return html`<p class="small" data-testid="security">None: anyone may call it.</p>`;
  }
  const optional = requirements.some((r) => !Object.keys(r).length);
  return html`<ul class="small" data-testid="security">
    ${requirements.filter((r) => Object.keys(r).length).map((r, i) => html`<li key=${i}>${i ? 'or ' : ''}${Object.keys(r).map((k, j) => html`${j ? ' and ' : ''}<strong>${schemeName(k, schemes[k])}</strong>${schemes[k]?.description ? html`: ${schemes[k].description}` : null}`)}</li>`)}
    ${optional ? html`<li>or none (when not configured)</li>` : null}
  </ul>`;
}

function Content({ content, doc }) {
  const entries = Object.entries(content || {});
  if (!entries.length) return html`<span class="muted small">no body</span>`;
  return entries.map(([type, c]) => html`<div key=${type}><span class="muted small">${type}</span>
    ${c.schema ? html`<${Schema} schema=${c.schema} doc=${doc} />` : null}</div>`);
}

function Operation({ o, doc }) {
  const { op } = o;
  const params = [...(o.item.parameters || []), ...(op.parameters || [])]
    .map((p) => (p.$ref ? doc.components?.parameters?.[p.$ref.split('/').pop()] || p : p));
  const body = () => html`<div class="api-op-body stack">
    ${op.description ? html`<p>${op.description}</p>` : null}
    <div><h4>Security</h4><${Security} op=${op} doc=${doc} /></div>
    ${params.length ? html`<div><h4>Parameters</h4>
      <ul class="schema-props" data-testid="parameters">${params.map((p) => html`<li key=${`${p.in} ${p.name}`} data-parameter=${p.name}>
        <code class="wrap">${p.name}</code> <span class="muted small">in ${p.in}</span>${p.required ? html` <span class="badge warn">required</span>` : null}
        ${p.description ? html`<div class="small">${p.description}</div>` : null}
        <${Schema} schema=${p.schema} doc=${doc} />
      </li>`)}</ul></div>` : null}
    ${op.requestBody ? html`<div data-testid="request-body"><h4>Request body${op.requestBody.required ? html` <span class="badge warn">required</span>` : null}</h4>
      ${op.requestBody.description ? html`<p class="small">${op.requestBody.description}</p>` : null}
      <${Content} content=${op.requestBody.content} doc=${doc} /></div>` : null}
    <div><h4>Responses</h4>
      <ul class="schema-props">${Object.entries(op.responses || {}).map(([status, r]) => html`<li key=${status} data-status=${status}>
        <strong class="mono">${status}</strong> ${r.description}
        ${r.content ? html`<${Content} content=${r.content} doc=${doc} />` : null}
      </li>`)}</ul></div>
  </div>`;
  return html`<li><${Lazy} className="api-op" testid="operation" op=${o.key} body=${body} summary=${html`<span class=${`badge method ${TONES[o.method] || 'neutral'}`}>${o.method.toUpperCase()}</span> <code class="wrap">${o.path}</code>
    ${op.summary ? html` <span class="api-summary">${op.summary}</span>` : null}${op.deprecated ? html` <span class="badge warn">deprecated</span>` : null}`} /></li>`;
}

export function DataApi() {
  const spec = useResource('/openapi.json');
  const [filter, setFilter] = useState('');
  const doc = spec.data;
  const all = useMemo(() => (doc ? operations(doc) : []), [doc]);
  const words = filter.trim().toLowerCase();
  const matching = all.filter((o) => !words
    || [o.key, o.op.summary, ...(o.op.tags || [])].some((v) => String(v ?? '').toLowerCase().includes(words)));
  const by = new Map((doc?.tags || []).map((t) => [t.name, []]));
  for (const o of matching) {
    const tag = o.op.tags?.[0] || 'Other';
    if (!by.has(tag)) by.set(tag, []);
    by.get(tag).push(o);
  }
  const groups = [...by.entries()].filter(([, ops]) => ops.length);
  const slug = (tag) => `tag-${tag.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  const tagDescription = (name) => (doc?.tags || []).find((t) => t.name === name)?.description;
  return html`<div class="stack data-page api-ref">
    <div class="page-head"><h1>API reference</h1><span class="note">the console's routes as its OpenAPI document describes them</span></div>
    <section class="card" aria-labelledby="api-h">
      <header><h2 id="api-h">${doc ? `${doc.info?.title || 'ops-console'} ${doc.info?.version || ''}` : 'Operations'}</h2>
        <a class="small" href="/openapi.json" download="ops-console-openapi.json">Download the OpenAPI document (JSON)</a></header>
      ${doc?.info?.description ? html`<p class="small">${doc.info.description}</p>` : null}
      <form role="search" class="search" onSubmit=${(e) => e.preventDefault()}>
        <label for="api-filter">Filter</label>
        <input id="api-filter" type="search" value=${filter} placeholder="Path, summary, method or tag" aria-describedby="api-filter-hint"
          onInput=${(e) => setFilter(e.currentTarget.value)} />
        <div class="hint" id="api-filter-hint">Narrows the operations below as you type.</div>
      </form>
      ${!doc ? html`<${Pending} resource=${spec} label="the API reference" />`
        : !all.length ? html`<${Empty}>The document lists no operation.<//>`
        : !matching.length ? html`<${Empty}>No operation matches “${filter.trim()}”.<//>`
        : groups.map(([tag, ops]) => html`<section key=${tag} class="api-tag" aria-labelledby=${slug(tag)} data-tag=${tag}>
            <h3 id=${slug(tag)}>${tag} <span class="muted small">${ops.length}</span></h3>
            ${tagDescription(tag) ? html`<p class="small">${tagDescription(tag)}</p>` : null}
            <ul class="api-ops">${ops.map((o) => html`<${Operation} key=${o.key} o=${o} doc=${doc} />`)}</ul>
          </section>`)}
      ${doc ? html`<div class="list-foot"><span class="muted" role="status" data-testid="api-count">${`${matching.length} of ${all.length} ${all.length === 1 ? 'operation' : 'operations'}${words ? ' matching' : ''}`}</span></div>` : null}
    </section>
  </div>`;
}
