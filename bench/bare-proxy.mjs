/**
 * The floor any Node gateway pays, as issue 14 defines it: a node:http server that reads each request
 * body, parses the JSON and serializes it again (as a gateway that rewrites `model` must), forwards it
 * with http.request over a keep-alive Agent, and parses what comes back the same way: a JSON answer is
 * parsed and re-serialized whole, a stream line by line (every `data:` line's JSON parsed and
 * re-serialized, each upstream read written on as one write, so streams keep their timing).
 * No auth, no limits, no routing. Prints `{"port":N}` on stdout when listening; exits when stdin closes.
 *
 * Env: BENCH_PROXY_TARGET (origin of the upstream, e.g. http://127.0.0.1:4000); BENCH_PROXY_MODE `pipe`
 * pipes the answer back unparsed (the lighter floor the benchmark used before 2026-11-25, kept for
 * comparison in measure-stack-floor.mjs).
 */
import { Agent, createServer, request } from 'node:http';

const target = new URL(process.env.BENCH_PROXY_TARGET ?? '');
// Same pool size as the router's upstream client (connections: 256), so both may open as many sockets.
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding'];
const PIPE = process.env.BENCH_PROXY_MODE === 'pipe';

function fail(res, status, message) {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type: 'proxy_error' } }));
}

/** Parses the whole answer and sends it re-serialized (a gateway rewriting `model` in the answer must). */
function relayJson(upstreamRes, res, headers) {
  const chunks = [];
  upstreamRes.on('data', (chunk) => chunks.push(chunk));
  upstreamRes.on('end', () => {
    let body;
    try {
      body = Buffer.from(JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    } catch {
      return fail(res, 502, 'upstream answered with invalid JSON');
    }
    res.writeHead(upstreamRes.statusCode ?? 502, { ...headers, 'content-length': body.length });
    res.end(body);
  });
}

/** Splits the stream into lines and re-serializes every `data:` line's JSON; one write per upstream read. */
function relayStream(upstreamRes, res, headers) {
  delete headers['content-length'];
  res.writeHead(upstreamRes.statusCode ?? 502, headers);
  let rest = '';
  upstreamRes.setEncoding('utf8');
  upstreamRes.on('data', (text) => {
    const lines = (rest + text).split('\n');
    rest = lines.pop();
    let out = '';
    try {
      for (const line of lines) {
        if (line.startsWith('data: ') && line !== 'data: [DONE]') out += `data: ${JSON.stringify(JSON.parse(line.slice(6)))}\n`;
        else out += `${line}\n`;
      }
    } catch {
      return void res.destroy();
    }
    if (out !== '') res.write(out);
  });
  upstreamRes.on('end', () => res.end(rest));
}

function forward(req, res, text) {
  let payload;
  try {
    payload = Buffer.from(JSON.stringify(JSON.parse(text)));
  } catch {
    return fail(res, 400, 'invalid JSON');
  }
  const upstream = request(
    {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      agent,
      headers: {
        'content-type': 'application/json',
        'content-length': payload.length,
        accept: req.headers.accept ?? '*/*',
        authorization: req.headers.authorization ?? '',
      },
    },
    (upstreamRes) => {
      const headers = { ...upstreamRes.headers };
      for (const name of HOP_BY_HOP) delete headers[name];
      if (PIPE) {
        res.writeHead(upstreamRes.statusCode ?? 502, headers);
        upstreamRes.pipe(res);
      } else if (String(headers['content-type']).startsWith('text/event-stream')) relayStream(upstreamRes, res, headers);
      else relayJson(upstreamRes, res, headers);
    },
  );
  upstream.on('error', () => fail(res, 502, 'upstream connection failed'));
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  upstream.end(payload);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => forward(req, res, Buffer.concat(chunks).toString('utf8')));
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
