import { Type } from '@sinclair/typebox';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_TABLE, type ErrorCode } from '../../../src/core/errors.js';
import { buildOpenApiDocument } from '../../../src/http/openapi/openapi-document.js';
import { PUBLIC_ENDPOINTS, type PublicEndpoint } from '../../../src/http/openapi/public-endpoints.js';
import { templateOf } from '../../../src/http/openapi/served-routes.js';
import { apiReference } from '../../../src/app/docs/api-reference.js';

const OPTIONS = { baseUrl: 'https://router.example', version: '9.9.9' };
// A made-up endpoint (no such route exists), to show what one registry entry adds.
const playlists: PublicEndpoint = {
  path: '/v1/playlists',
  method: 'post',
  operationId: 'createPlaylist',
  summary: 'Create a playlist',
  tag: 'Models',
  requestSchema: Type.Object({ slug: Type.String({ maxLength: 64 }), models: Type.Array(Type.String()) }, { additionalProperties: false }),
  success: { status: 201, description: 'The playlist.' },
  errors: ['invalid_request', 'management_key_required'],
  auth: 'management',
  openRouterAlias: true,
};

describe('the OpenAPI document built from the endpoint registry', () => {
  it('adds an endpoint from one registry entry: both paths, its schema, security, errors and the reference page', () => {
    const document = buildOpenApiDocument(OPTIONS, [...PUBLIC_ENDPOINTS, playlists]);
    for (const path of ['/v1/playlists', '/api/v1/playlists']) {
      const operation = document.paths[path]!.post as any;
      expect(operation.requestBody.content['application/json'].schema).toEqual(JSON.parse(JSON.stringify(playlists.requestSchema)));
      expect(operation.security).toEqual([{ managementKey: [] }]);
      expect(operation.responses['201'].description).toBe('The playlist.');
      expect(operation.responses['400'].description).toBe('Error codes: invalid_request.');
      // Every authenticated operation also lists authentication failures and the router's own outages.
      expect(operation.responses['401'].description).toContain('invalid_api_key');
      expect(operation.responses['503'].description).toContain('store_unavailable');
    }
    expect(new Set([(document.paths['/v1/playlists']!.post as any).operationId, (document.paths['/api/v1/playlists']!.post as any).operationId]).size).toBe(2);
    expect(apiReference(document).find((operation) => operation.path === '/v1/playlists')).toMatchObject({
      method: 'POST',
      auth: 'management key',
      bodyFields: [
        { name: 'slug', type: 'string', required: true },
        { name: 'models', type: 'array', required: true },
      ],
    });
  });

  it('gives every operation a unique operationId and files every error code under its own status', () => {
    const document = buildOpenApiDocument(OPTIONS);
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item)) as any[];
    expect(new Set(operations.map((operation) => operation.operationId)).size).toBe(operations.length);
    for (const operation of operations) {
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (Number(status) < 400) continue;
        const codes = (response.description as string).replace(/^Error codes: /, '').replace(/\.$/, '').split(', ') as ErrorCode[];
        for (const code of codes) expect(ERROR_TABLE[code].status).toBe(Number(status));
      }
    }
  });

  it('turns any served h3 path into the template the document uses', () => {
    const segment = fc.stringMatching(/^[a-z_]{1,12}$/);
    fc.assert(
      fc.property(fc.array(fc.oneof(segment, segment.map((name) => `:${name}`)), { minLength: 1, maxLength: 5 }), (segments) => {
        const template = templateOf(`/v1/${segments.join('/')}`);
        expect(template).toBe(`/v1/${segments.map((part) => (part.startsWith(':') ? `{${part.slice(1)}}` : part)).join('/')}`);
      }),
    );
    expect(templateOf('/v1/models/**')).toBe('/v1/models/{id}');
  });
});
