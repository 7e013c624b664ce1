/**
 * One trace, as the test OTLP receiver decoded it, drawn as a waterfall page (test support only: there
 * is no Jaeger or Tempo here, so docs/operations.md shows the router's own spans this way). Each span is
 * a row: its name indented under its parent, a bar placed by its start and length on the trace's time
 * axis, and the attributes an operator looks at first. Everything is escaped; the page has no script.
 */
import type { ExportedSpan } from './otlp-receiver.js';

const SHOWN = [
  'http.route',
  'http.response.status_code',
  'router.limit.decision',
  'router.retry_count',
  'gen_ai.provider.name',
  'gen_ai.request.model',
  'gen_ai.response.model',
  'router.attempt.outcome',
  'router.failover.reason',
  'router.attempt.time_to_first_byte_ms',
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens',
  'gen_ai.response.finish_reasons',
];
const KIND = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function renderWaterfall(spans: readonly ExportedSpan[], traceId: string, title: string): string {
  const mine = spans.filter((span) => span.traceId === traceId).sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
  const ids = new Set(mine.map((span) => span.spanId));
  const start = mine.reduce((min, span) => (span.startNs < min ? span.startNs : min), mine[0]!.startNs);
  const end = mine.reduce((max, span) => (span.endNs > max ? span.endNs : max), mine[0]!.endNs);
  const total = Number(end - start) || 1;
  const rows: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const span of mine.filter((s) => (parent === undefined ? !s.parentSpanId || !ids.has(s.parentSpanId) : s.parentSpanId === parent))) {
      const left = (Number(span.startNs - start) / total) * 100;
      const width = Math.max((Number(span.endNs - span.startNs) / total) * 100, 0.4);
      const ms = (Number(span.endNs - span.startNs) / 1e6).toFixed(1);
      const attributes = SHOWN.filter((key) => span.attributes[key] !== undefined)
        .map((key) => `<span class="attr">${escape(key)}=<b>${escape(JSON.stringify(span.attributes[key]))}</b></span>`)
        .join(' ');
      const kind = KIND[span.kind] ?? 'internal';
      rows.push(`<tr class="${span.statusCode === 2 ? 'error' : ''}">
  <th scope="row" style="padding-left:${0.5 + depth * 1.25}rem"><span class="name">${escape(span.name)}</span> <span class="kind">${kind}${span.statusCode === 2 ? ', error' : ''}</span></th>
  <td class="time">${ms} ms</td>
  <td class="lane"><span class="bar ${kind}" style="margin-left:${left.toFixed(2)}%;width:${width.toFixed(2)}%" role="img" aria-label="starts at ${(Number(span.startNs - start) / 1e6).toFixed(1)} ms, lasts ${ms} ms"></span><div class="attrs">${attributes}</div></td>
</tr>`);
      walk(span.spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  const service = String(mine[0]!.resource['service.name'] ?? '');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escape(title)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1a1a1a;background:#fff}
h1{font-size:1.2rem;margin:0 0 .25rem}p{margin:0 0 1rem;color:#444}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th,td{border-bottom:1px solid #e3e3e3;padding:.4rem .5rem;vertical-align:top;text-align:left}
thead th{font-weight:600;color:#444;border-bottom:2px solid #ccc}
th[scope=row]{width:26%;font-weight:500;overflow-wrap:anywhere}
.time{width:7%;text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.kind{color:#555;font-size:.8rem;font-weight:400}
.bar{display:block;height:.9rem;border-radius:3px;background:#3b6fd6}
.bar.server{background:#1f4fa8}.bar.client{background:#2b8a3e}.bar.internal{background:#7a7f87}
tr.error .bar{background:#c92a2a}tr.error .name{color:#a61e1e}
.attrs{margin-top:.3rem;font-size:.78rem;color:#333;overflow-wrap:anywhere}
.attr{display:inline-block;margin:0 .6rem .15rem 0}
</style></head>
<body><main>
<h1>${escape(title)}</h1>
<p>Trace <code>${escape(traceId)}</code> from service <code>${escape(service)}</code>: ${mine.length} spans over ${(total / 1e6).toFixed(1)} ms, as the test OTLP collector received them.</p>
<table><thead><tr><th scope="col">Span</th><th scope="col" class="time">Duration</th><th scope="col">Timeline and attributes</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>
</main></body></html>`;
}
