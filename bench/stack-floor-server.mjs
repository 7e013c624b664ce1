/**
 * The card's stack with none of the router's own work: the smallest gateway built from the same parts
 * as the router, to tell what the parts cost from what the pipeline costs. Like bare-proxy.mjs it reads
 * the body, parses and re-serializes the JSON, forwards it and relays the answer; no auth, limits,
 * routing, translation or ledger. Prints `{"port":N}` on stdout when listening; exits when stdin closes.
 *
 * Env: BENCH_PROXY_TARGET (origin of the upstream), BENCH_FLOOR_STACK:
 *   `h3+undici`        h3 app (createApp, eventHandler, readRawBody) → undici Agent.request (the router's parts)
 *   `node:http+undici` node:http server → undici Agent.request
 *   `h3+node:http`     h3 app → http.request over a keep-alive Agent (the bare proxy's client)
 */
import { Agent as HttpAgent, createServer, request } from 'node:http';
import { createApp, eventHandler, readRawBody, toNodeListener } from 'h3';
import { Agent } from 'undici';

const target = new URL(process.env.BENCH_PROXY_TARGET ?? '');
const stack = process.env.BENCH_FLOOR_STACK ?? '';
// Pool sizes as the router's upstream client and the bare proxy (256 connections).
const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 256 });
const pool = new Agent({ connections: 256, keepAliveTimeout: 30_000 });

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function viaUndici(req, res, text) {
  const response = await pool.request({
    origin: target.origin,
    path: req.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
    body: JSON.stringify(JSON.parse(text)),
  });
  res.writeHead(response.statusCode, { 'content-type': response.headers['content-type'] });
  for await (const chunk of response.body) res.write(chunk);
  res.end();
}

function viaNodeHttp(req, res, text) {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(JSON.stringify(JSON.parse(text)));
    const headers = { 'content-type': 'application/json', 'content-length': payload.length, authorization: req.headers.authorization ?? '' };
    const upstream = request({ host: target.hostname, port: target.port, method: 'POST', path: req.url, agent: httpAgent, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] });
      answer.pipe(res);
      answer.on('end', resolve);
    });
    upstream.on('error', reject);
    upstream.end(payload);
  });
}

function h3Listener(forward) {
  const app = createApp();
  app.use(eventHandler(async (event) => forward(event.node.req, event.node.res, await readRawBody(event, 'utf8'))));
  return toNodeListener(app);
}

const listeners = {
  'h3+undici': () => h3Listener(viaUndici),
  'node:http+undici': () => async (req, res) => viaUndici(req, res, await readBody(req)),
  'h3+node:http': () => h3Listener(viaNodeHttp),
};
if (!listeners[stack]) throw new Error(`BENCH_FLOOR_STACK must be one of ${Object.keys(listeners).join(', ')}`);
const server = createServer(listeners[stack]());
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
