import { Ajv, type ErrorObject } from 'ajv';
import type { RouteProfileConfig } from '../../config/types.js';
import { checkJsonBounds, type JsonBounds } from '../../core/check-json-bounds.js';
import { RouterError } from '../../core/errors.js';
import { findNonFiniteNumber } from '../../core/find-non-finite-number.js';
import { readBoundedBody, type BodyReadErrors } from '../../core/read-bounded-body.js';
import { establishing, type Authenticated, type ParsedBody, type WithBody } from '../request-context.js';
import type { Stage } from './stage.js';

/** An endpoint's own rule over a schema-valid body: throws the contract's error to refuse it. */
export type BodyRule = (body: Record<string, unknown>) => void;

/**
 * Bounds of a request body's JSON, checked on the text before it is parsed (docs/api.md). Generous for
 * real traffic (a deep JSON Schema in a tool is a dozen levels; a long agent transcript a few thousand
 * nodes) and far below what would stall the process or overflow a stack.
 */
export const BODY_JSON_BOUNDS: JsonBounds = { maxDepth: 64, maxNodes: 100_000 };

/**
 * Reads the body of model traffic (bounded: 413 past the limit, before buffering it), bounds its
 * nesting and node count (400), parses JSON (400 invalid_json), refuses numbers too large to represent
 * (400) and anything but an object. What it holds is judged next, by the check stage: between the two,
 * a preset the body names is applied (stages/apply-preset.ts), so the endpoint judges what the preset
 * added exactly as if the client had sent it.
 */
export function createReadJsonBodyStage(options: { limitBytes: number }): Stage<Authenticated, ParsedBody> {
  const readErrors: BodyReadErrors = {
    tooLarge: () => new RouterError('request_too_large', `The request body is larger than the limit of ${options.limitBytes} bytes.`),
    aborted: () => new RouterError('client_closed_request', 'The client closed the connection while sending the request body.'),
  };
  // Authenticated first: a caller without a valid key learns nothing from how its body is judged.
  return async (event, request) => {
    const body = parseBoundedJson((await readBoundedBody(event.node.req, options.limitBytes, readErrors)).toString('utf8'));
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new RouterError('invalid_request', 'The request body must be a JSON object.');
    const parsed = establishing<ParsedBody>(request);
    parsed.body = body as Record<string, unknown>;
    return parsed;
  };
}

/**
 * Checks the parsed body against the endpoint's schema (400 invalid_request naming the field) and the
 * endpoint's own rules (`refuse`, which throws the contract's error for a request no route can serve),
 * and resolves the route profile the `model` names, so the quota stage knows the request's weight.
 * Everything refused here is refused before admission, so it never counts.
 */
export function createCheckBodyStage(options: { schema: object; routes: ReadonlyMap<string, RouteProfileConfig>; refuse?: BodyRule | undefined }): Stage<ParsedBody, WithBody> {
  const validate = createBodyValidator(options.schema);
  return (_event, request) => {
    const invalid = validate(request.body);
    if (invalid) throw invalid;
    options.refuse?.(request.body);
    // Synchronous: the fact is set on the request's one object, no promise needed (stage.ts).
    establishing<WithBody>(request).route = options.routes.get((request.body as { model: string }).model);
  };
}

/** The endpoint's schema as the body stage applies it: the RouterError for the first problem, or undefined. */
export function createBodyValidator(schema: object): (body: unknown) => RouterError | undefined {
  const validate = new Ajv({ allErrors: false, strict: false }).compile(schema);
  return (body) => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return new RouterError('invalid_request', 'The request body must be a JSON object.');
    }
    return validate(body) ? undefined : invalidField(validate.errors?.[0]);
  };
}

function parseBoundedJson(text: string): unknown {
  const violation = checkJsonBounds(text, BODY_JSON_BOUNDS);
  if (violation) {
    const where = violation.member === null ? '' : ` (in '${violation.member}')`;
    const message =
      violation.bound === 'depth'
        ? `The request body nests objects and arrays more than ${BODY_JSON_BOUNDS.maxDepth} levels deep${where}.`
        : `The request body has more than ${BODY_JSON_BOUNDS.maxNodes} JSON values${where}.`;
    throw new RouterError('invalid_request', message, { param: violation.member });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RouterError('invalid_json', 'The request body is not valid JSON. Send a JSON object with Content-Type: application/json.');
  }
  const nonFinite = findNonFiniteNumber(body);
  if (nonFinite !== undefined) {
    throw new RouterError('invalid_request', `Invalid value for '${nonFinite}': numbers must be finite (this one is too large to represent).`, { param: nonFinite || null });
  }
  return body;
}

function invalidField(error: ErrorObject | undefined): RouterError {
  if (!error) return new RouterError('invalid_request', 'The request body is invalid.');
  const path = error.instancePath.slice(1).split('/').filter(Boolean).map(unescapePointer);
  if (error.keyword === 'required') path.push(String(error.params.missingProperty));
  const param = path.map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`)).join('') || null;
  if (error.keyword === 'required') return new RouterError('invalid_request', `Missing required parameter: '${param}'.`, { param });
  const allowed = error.keyword === 'enum' ? ` (one of: ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')})` : '';
  return new RouterError('invalid_request', `Invalid value for '${param}': ${error.message}${allowed}.`, { param });
}

function unescapePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}
