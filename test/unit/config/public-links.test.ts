import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { publicLinks } from '../../../src/config/public-links.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { replaceOnce, writeConfigVariant, removeConfigVariants } from './config-variant.js';
import { afterAll } from 'vitest';

afterAll(removeConfigVariants);

const LOCAL = { baseUrl: 'http://127.0.0.1:8787', appUrl: 'http://127.0.0.1:8787/app', docsUrl: 'http://127.0.0.1:8787/docs', supportUrl: 'http://127.0.0.1:8787/app/support' };
const PUBLIC = { baseUrl: 'https://api.example.com', appUrl: 'https://app.example.com', docsUrl: 'https://docs.example.com', supportUrl: 'https://help.example.com' };

describe('absolute links (public-links.ts)', () => {
  it('with no request (the CLI, a background job) are the configured ones', () => {
    expect(publicLinks(LOCAL)).toEqual({ ...LOCAL, apiBase: 'http://127.0.0.1:8787/v1' });
    expect(publicLinks(PUBLIC, null)).toEqual({ ...PUBLIC, apiBase: 'https://api.example.com/v1' });
  });

  it('keep the loopback name the person is using, at the configured port', () => {
    expect(publicLinks(LOCAL, 'localhost:8787')).toEqual({
      baseUrl: 'http://localhost:8787',
      apiBase: 'http://localhost:8787/v1',
      appUrl: 'http://localhost:8787/app',
      docsUrl: 'http://localhost:8787/docs',
      supportUrl: 'http://localhost:8787/app/support',
    });
    expect(publicLinks({ ...LOCAL, appUrl: 'http://localhost:8787/app' }, '127.0.0.1:8787').appUrl).toBe('http://127.0.0.1:8787/app');
    expect(publicLinks(LOCAL, '[::1]:8787').baseUrl).toBe('http://[::1]:8787');
  });

  it('never follow a Host header to another port, or any name for a non-loopback configuration', () => {
    expect(publicLinks(LOCAL, 'localhost:9999')).toEqual(publicLinks(LOCAL));
    expect(publicLinks(PUBLIC, 'localhost')).toEqual(publicLinks(PUBLIC));
    expect(publicLinks(PUBLIC, '127.0.0.1:443')).toEqual(publicLinks(PUBLIC));
    fc.assert(
      fc.property(fc.string(), (host) => {
        expect(publicLinks(PUBLIC, host)).toEqual(publicLinks(PUBLIC));
        const links = publicLinks(LOCAL, host);
        // Whatever the header says, every link stays on a loopback name at the configured port and path.
        for (const [field, url] of Object.entries(links)) {
          const parsed = new URL(url);
          expect(['127.0.0.1', 'localhost', '[::1]']).toContain(parsed.hostname);
          expect(parsed.port).toBe('8787');
          expect(parsed.pathname).toBe(new URL(field === 'apiBase' ? `${LOCAL.baseUrl}/v1` : LOCAL[field as keyof typeof LOCAL]).pathname);
        }
      }),
    );
  });

  it('default baseUrl is 127.0.0.1 (what the README gives) at the configured port, also for a wildcard bind', () => {
    const strip = replaceOnce('baseUrl: http://localhost:8787\nappUrl: http://localhost:8787/app\ndocsUrl: http://localhost:8787/docs\nsupportUrl: http://localhost:8787/app/support\n', '');
    const defaults = loadConfig(writeConfigVariant({ 'server.yaml': strip }), {});
    expect([defaults.server.baseUrl, defaults.server.appUrl]).toEqual([`http://127.0.0.1:${defaults.server.listen.port}`, `http://127.0.0.1:${defaults.server.listen.port}/app`]);
    const wildcard = loadConfig(writeConfigVariant({ 'server.yaml': strip }), { ROUTER_HOST: '0.0.0.0', ROUTER_PORT: '9100' });
    expect(wildcard.server.appUrl).toBe('http://127.0.0.1:9100/app');
  });
});
