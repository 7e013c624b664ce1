import type { IncomingMessage } from 'node:http';
import { Ajv, type ErrorObject } from 'ajv';
import type { RouteProfileConfig } from '../../config/types.js';
import { RouterError } from '../../core/errors.js';
import type { Stage } from './stage.js';

/**
 * Reads the body of model traffic (bounded: 413 past the limit, before buffering it), parses JSON
 * (400 invalid_json), checks it against the endpoint's schema (400 invalid_request naming the field),
 * and resolves the route profile the `model` names, so the quota stage knows the request's weight.
 */
export function createReadJsonBodyStage(options: {
  limitBytes: number;
  schema: object;
  routes: ReadonlyMap<string, RouteProfileConfig>;
}): Stage {
  const validate = new Ajv({ allErrors: false, strict: false }).compile(options.schema);
  return async (event, ctx) => {
    const text = await readBoundedBody(event.node.req, options.limitBytes);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new RouterError('invalid_json', 'The request body is not valid JSON. Send a JSON object with Content-Type: application/json.');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new RouterError('invalid_request', 'The request body must be a JSON object.');
    }
    if (!validate(body)) throw invalidField(validate.errors?.[0]);
    ctx.body = body as Record<string, unknown>;
    ctx.route = options.routes.get((body as { model: string }).model);
  };
}

function invalidField(error: ErrorObject | undefined): RouterError {
  if (!error) return new RouterError('invalid_request', 'The request body is invalid.');
  const path = error.instancePath.slice(1).split('/').filter(Boolean);
  if (error.keyword === 'required') path.push(String(error.params.missingProperty));
  const param = path.map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`)).join('') || null;
  const message = error.keyword === 'required' ? `Missing required parameter: '${param}'.` : `Invalid value for '${param}': ${error.message}.`;
  return new RouterError('invalid_request', message, { param });
}

/**
 * Reads the body up to the limit. Past it, reading stops (the request is paused, never destroyed: the
 * 413 still has to go out on the same socket) and the 413 asks for the connection to be closed, so
 * the rest of an oversized upload is never buffered.
 */
function readBoundedBody(req: IncomingMessage, limitBytes: number): Promise<string> {
  const tooLarge = () =>
    new RouterError('request_too_large', `The request body is larger than the limit of ${limitBytes} bytes.`, { headers: { connection: 'close' } });
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: () => void) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onError);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limitBytes) return void chunks.push(chunk);
      req.pause();
      settle(() => reject(tooLarge()));
    };
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks, size).toString('utf8')));
    // An upload cut off half-way (the client left, or its framing broke) ends in 'aborted' or an error.
    const onError = () => settle(() => reject(new RouterError('client_closed_request', 'The client closed the connection while sending the request body.')));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('aborted', onError);
  });
}
