/**
 * The docs' "API reference" page, read from the OpenAPI document the API serves (GET /v1/openapi.json):
 * the composition root hands the same generated document to the app (AppServices.openApi), so the page
 * lists what the API validates, never a hand-kept copy. Only the shape read here is typed.
 */

/** The part of an OpenAPI 3.1 document the page reads. */
export interface OpenApiSource {
  paths: Record<string, Record<string, Readonly<Record<string, unknown>>>>;
}

export interface ReferenceOperation {
  anchor: string;
  method: string;
  path: string;
  summary: string;
  auth: string;
  parameters: { name: string; in: string; required: boolean; description: string }[];
  /** The body's top-level fields (required ones first), with their JSON types. */
  bodyFields: { name: string; type: string; required: boolean }[];
  responses: { status: string; description: string }[];
}

/** At most this many body fields listed per operation (the Responses body has a few dozen). */
const MAX_FIELDS = 80;

export function apiReference(document: OpenApiSource): ReferenceOperation[] {
  const operations: ReferenceOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    // OpenRouter's /api/v1 aliases are the same operations: listed once, under /v1.
    if (path.startsWith('/api/')) continue;
    for (const [method, operation] of Object.entries(item)) {
      operations.push({
        anchor: `${method}-${path}`.replace(/[^a-z0-9]+/gi, '-').replace(/-+$/, ''),
        method: method.toUpperCase(),
        path,
        summary: String(operation.summary ?? ''),
        auth: authOf(operation.security),
        parameters: arrayOf(operation.parameters).map((parameter) => ({
          name: String(parameter.name),
          in: String(parameter.in),
          required: parameter.required === true,
          description: String(parameter.description ?? ''),
        })),
        bodyFields: bodyFieldsOf(operation.requestBody),
        responses: Object.entries(recordOf(operation.responses)).map(([status, response]) => ({ status, description: String(recordOf(response).description ?? '') })),
      });
    }
  }
  return operations;
}

function authOf(security: unknown): string {
  const schemes = arrayOf(security).flatMap((requirement) => Object.keys(requirement));
  if (schemes.includes('managementKey')) return 'management key';
  return schemes.length > 0 ? 'bearer key' : 'none';
}

function bodyFieldsOf(requestBody: unknown): ReferenceOperation['bodyFields'] {
  const schema = recordOf(recordOf(recordOf(recordOf(requestBody).content)['application/json']).schema);
  const required = new Set(arrayOf<string>(schema.required));
  const fields = Object.entries(recordOf(schema.properties)).map(([name, property]) => ({ name, type: typeOf(recordOf(property)), required: required.has(name) }));
  return fields.sort((a, b) => Number(b.required) - Number(a.required)).slice(0, MAX_FIELDS);
}

/** A field's JSON type as a reader wants it: `string`, `integer | null`, `array`, `one of 3 shapes`. */
function typeOf(schema: Record<string, unknown>): string {
  if (typeof schema.type === 'string') return schema.type;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const choices = arrayOf(schema.anyOf ?? schema.oneOf);
  if (choices.length > 0) {
    const types = [...new Set(choices.map((choice) => typeOf(choice)))];
    return types.length <= 4 ? types.join(' | ') : `one of ${types.length} shapes`;
  }
  return 'any';
}

function recordOf(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function arrayOf<T = Record<string, unknown>>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}
