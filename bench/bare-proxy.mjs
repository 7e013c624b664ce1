/**
 * The floor any Node gateway pays: a node:http server that reads each request body, parses the JSON
 * and serializes it again (as a gateway that rewrites `model` must), forwards it with http.request
 * over a keep-alive Agent, and pipes the response back unchanged (so streams keep their timing).
 * No auth, no limits, no routing. Prints `{"port":N}` on stdout when listening; exits when stdin closes.
 *
 * Env: BENCH_PROXY_TARGET (origin of the upstream, e.g. http://127.0.0.1:4000).
 */
import { Agent, createServer, request } from 'node:http';

const target = new URL(process.env.BENCH_PROXY_TARGET ?? '');
// Same pool size as the router's upstream client (connections: 256), so both may open as many sockets.
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding'];

function fail(res, status, message) {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type: 'proxy_error' } }));
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
      res.writeHead(upstreamRes.statusCode ?? 502, headers);
      upstreamRes.pipe(res);
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
