import type { IncomingMessage } from 'node:http';
import { Ajv, type ErrorObject } from 'ajv';
import type { RouteProfileConfig } from '../../config/types.js';
import { RouterError } from '../../core/errors.js';
import type { Stage } from './stage.js';

/** An endpoint's own rule over a schema-valid body: throws the contract's error to refuse it. */
export type BodyRule = (body: Record<string, unknown>) => void;

/**
 * Reads the body of model traffic (bounded: 413 past the limit, before buffering it), parses JSON
 * (400 invalid_json), checks it against the endpoint's schema (400 invalid_request naming the field)
 * and the endpoint's own rules (`refuse`, which throws the contract's error for a request no route can
 * serve), and resolves the route profile the `model` names, so the quota stage knows the request's
 * weight. Everything refused here is refused before admission, so it never counts.
 */
export function createReadJsonBodyStage(options: {
  limitBytes: number;
  schema: object;
  routes: ReadonlyMap<string, RouteProfileConfig>;
  refuse?: BodyRule | undefined;
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
    options.refuse?.(body as Record<string, unknown>);
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

async function readBoundedBody(req: IncomingMessage, limitBytes: number): Promise<string> {
  const tooLarge = () =>
    new RouterError('request_too_large', `The request body is larger than the limit of ${limitBytes} bytes.`, { headers: { connection: 'close' } });
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
