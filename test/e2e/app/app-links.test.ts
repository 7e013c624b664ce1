/**
 * Absolute links keep the address the person is using: a router configured at http://127.0.0.1:<port>
 * (what the README and the start-up log give) and opened at http://localhost:<port> (or the other way
 * round) links its header, the API base in the snippets, "Ask for Pro" and the mailed reset link to the
 * same host name, so cookies are never lost between pages. A Host header outside the loopback aliases
 * the CSRF check accepts (app-origins tests) is never followed.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../../support/smtp-sink.js';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';

const PASSWORD = 'correct horse battery staple';
const hrefs = (html: string) => [...html.matchAll(/href="(https?:\/\/[^"]+)"/g)].map((match) => match[1]!);

/** A GET with a Host header of our choosing (fetch does not let a caller set Host). */
function getWithHost(url: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host, accept: 'text/html', 'user-agent': 'Mozilla/5.0 Chrome/130.0' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('absolute links follow the loopback name in use', () => {
  let sink: SmtpSink;
  let router: AppRouter;
  let port: string;

  beforeAll(async () => {
    sink = await startSmtpSink();
    router = await startAppRouter({ env: { ROUTER_SMTP_URL: sink.url }, app: { requireEmailVerification: false } });
    port = new URL(router.url).port;
  });
  afterAll(async () => {
    await router?.close();
    await sink?.close();
  });

  it('configured at 127.0.0.1, opened at localhost: the header, the API base and "Ask for Pro" say localhost', async () => {
    expect(router.server.runtime.config.server.appUrl).toBe(`http://127.0.0.1:${port}/app`);
    const browser = new AppClient(`http://localhost:${port}`);
    const landing = await browser.get('/');
    expect(hrefs(landing.html)).toContain(`http://localhost:${port}/pricing`);
    expect(landing.html).toContain(`<code id="landing-base">http://localhost:${port}/v1</code>`);
    const pricing = await browser.get('/pricing');
    expect(hrefs(pricing.html)).toContain(`http://localhost:${port}/app/billing?plan=pro`);
    for (const page of [landing, pricing]) expect(hrefs(page.html).filter((href) => href.includes('127.0.0.1'))).toEqual([]);
    // Signed in over localhost, the app's own pages and snippets stay there too.
    await browser.signUp('localhost.person@example.com', PASSWORD);
    const onboarding = await browser.follow(await browser.post('/app/onboarding/key', {}));
    expect(onboarding.html).toContain(`http://localhost:${port}/v1`);
    expect(onboarding.html).not.toContain(`127.0.0.1:${port}`);
  });

  it('mails the reset link to the host name the person asked from', async () => {
    const person = new AppClient(`http://localhost:${port}`);
    await person.signUp('mailed.link@example.com', PASSWORD);
    const anonymous = new AppClient(`http://localhost:${port}`);
    await anonymous.get('/app/forgot');
    expect((await anonymous.post('/app/forgot', { email: 'mailed.link@example.com' })).status).toBe(200);
    const mail = await sink.waitFor('mailed.link@example.com', /^Reset your password$/);
    expect(mail.text).toMatch(new RegExp(`http://localhost:${port}/app/link\\?token=`));
  });

  it('opened at 127.0.0.1, links say 127.0.0.1', async () => {
    const landing = await new AppClient(router.url).get('/');
    expect(hrefs(landing.html)).toContain(`http://127.0.0.1:${port}/pricing`);
    expect(hrefs(landing.html).filter((href) => href.includes('localhost'))).toEqual([]);
  });

  it('never follows a Host header outside the loopback aliases, nor another port', async () => {
    for (const host of ['evil.example', `evil.example:${port}`, 'localhost:1', `127.0.0.1.nip.io:${port}`]) {
      const html = await getWithHost(`${router.url}/`, host);
      const links = hrefs(html);
      expect(links).toContain(`http://127.0.0.1:${port}/pricing`);
      expect(links.filter((href) => !href.startsWith(`http://127.0.0.1:${port}`))).toEqual([]);
    }
  });
});
