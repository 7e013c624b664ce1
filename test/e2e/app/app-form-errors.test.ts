/**
 * Every form answers a problem at the field: the error next to it (aria-invalid, aria-describedby),
 * what was typed kept, and never a password or a key written back into the page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppClient, listedKeyIds, startAppRouter, type AppRouter } from '../app-harness.js';

const PASSWORD = 'correct horse battery staple';

/** The field's tag, its error paragraph, and whether they are tied together. */
function fieldWithError(html: string, id: string) {
  const tag = new RegExp(`<(?:input|select|textarea)[^>]*id="${id}"[^>]*>`).exec(html)?.[0] ?? '';
  const error = new RegExp(`<p class="field-error" id="${id}-error">([^<]+)</p>`).exec(html)?.[1];
  return { tag, error, tied: tag.includes('aria-invalid="true"') && tag.includes(`aria-describedby="${id}-error"`) };
}

describe('account app: errors at the field, input kept', () => {
  let router: AppRouter;

  beforeAll(async () => {
    router = await startAppRouter();
  });
  afterAll(() => router?.close());

  it('sign-up and sign-in: the error at its field, the email kept, the password never echoed', async () => {
    const browser = new AppClient(router.url);
    await browser.get('/app/signup');
    const badEmail = await browser.post('/app/signup', { email: 'not an email', password: 'short' });
    expect(badEmail.status).toBe(400);
    const email = fieldWithError(badEmail.html, 'email');
    expect(email.tied).toBe(true);
    expect(email.error).toContain('valid email');
    expect(email.tag).toContain('value="not an email"');
    expect(badEmail.html).not.toContain('class="problem"');

    const weak = await browser.post('/app/signup', { email: 'field@example.com', password: 'shortpw1' });
    expect(weak.status).toBe(400);
    expect(fieldWithError(weak.html, 'password').tied).toBe(true);
    expect(fieldWithError(weak.html, 'email').tag).toContain('value="field@example.com"');
    expect(weak.html).not.toContain('shortpw1');

    await browser.post('/app/signup', { email: 'field@example.com', password: PASSWORD });
    await browser.get('/app/signin');
    const wrong = await browser.post('/app/signin', { email: 'field@example.com', password: 'wrong password typed here' });
    expect(wrong.status).toBe(401);
    expect(fieldWithError(wrong.html, 'password').tied).toBe(true);
    expect(fieldWithError(wrong.html, 'email').tag).toContain('value="field@example.com"');
    expect(wrong.html).not.toContain('wrong password typed here');
  });

  it('keys: create, rotate and limits answer at the field and keep what was typed', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('keys-fields@example.com', PASSWORD);
    await browser.get('/app/keys');
    const create = await browser.post('/app/keys', { name: 'my laptop <b>', expiresInDays: '30', monthlyRequests: 'lots', requestsPerMinute: '7' });
    expect(create.status).toBe(400);
    expect(fieldWithError(create.html, 'key-cap').tied).toBe(true);
    expect(fieldWithError(create.html, 'key-cap').error).toContain('whole number');
    expect(fieldWithError(create.html, 'key-name').tag).toContain('value="my laptop &lt;b&gt;"');
    expect(fieldWithError(create.html, 'key-rpm').tag).toContain('value="7"');
    expect(fieldWithError(create.html, 'key-rpm').tied).toBe(false);
    expect(create.html).toMatch(/<option value="30" selected>/);
    const badExpiry = await browser.post('/app/keys', { name: 'x', expiresInDays: '12' });
    expect(fieldWithError(badExpiry.html, 'key-expiry').tied).toBe(true);

    const made = await browser.follow(await browser.post('/app/keys', { name: 'ci', expiresInDays: '90' }));
    const [id] = listedKeyIds(made.html);
    expect(id).toBeDefined();
    const limits = await browser.post(`/app/keys/${id}/limits`, { monthlyRequests: '12', requestsPerMinute: '0' });
    expect(limits.status).toBe(400);
    expect(fieldWithError(limits.html, `rpm-${id}`).tied).toBe(true);
    expect(fieldWithError(limits.html, `cap-${id}`).tag).toContain('value="12"');
    expect(limits.html).toMatch(/<details open><summary>Set this key's own limits/);
    const rotate = await browser.post(`/app/keys/${id}/rotate`, { graceSeconds: '5' });
    expect(rotate.status).toBe(400);
    expect(fieldWithError(rotate.html, `grace-${id}`).tied).toBe(true);
  });

  it('provider keys and the password change: the error at the field, the secret never written back', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('secret-fields@example.com', PASSWORD);
    await browser.get('/app/provider-keys');
    const provider = /name="provider" value="([^"]+)"/.exec((await browser.get('/app/provider-keys')).html)![1]!;
    const bad = await browser.post('/app/provider-keys', { provider, key: 'sk has spaces in it' });
    expect(bad.status).toBe(400);
    expect(fieldWithError(bad.html, `pk-${provider}`).tied).toBe(true);
    expect(bad.html).not.toContain('sk has spaces');

    await browser.get('/app/security');
    const wrong = await browser.post('/app/security/password', { currentPassword: 'not my current one', newPassword: 'a brand new long password' });
    expect(wrong.status).toBe(400);
    expect(fieldWithError(wrong.html, 'current-password').tied).toBe(true);
    expect(wrong.html).not.toContain('not my current one');
    expect(wrong.html).not.toContain('a brand new long password');
    const weak = await browser.post('/app/security/password', { currentPassword: PASSWORD, newPassword: 'short' });
    expect(fieldWithError(weak.html, 'new-password').tied).toBe(true);
  });

  it('the support bundle and onboarding’s provider key: the error at the field, the id and provider kept, never the key', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('more-fields@example.com', PASSWORD);
    await browser.get('/app/support');
    const malformed = await browser.post('/app/support/bundle', { requestId: 'not an id <b>' });
    expect(malformed.status).toBe(400);
    const field = fieldWithError(malformed.html, 'request-id');
    expect(field.tied).toBe(true);
    expect(field.error).toContain('up to 128 letters');
    expect(field.tag).toContain('value="not an id &lt;b&gt;"');
    expect(malformed.html).not.toContain('class="problem"');
    const unknown = await browser.post('/app/support/bundle', { requestId: 'req_nobody_sent_this' });
    expect(unknown.status).toBe(404);
    expect(fieldWithError(unknown.html, 'request-id').tied).toBe(true);
    expect(fieldWithError(unknown.html, 'request-id').tag).toContain('value="req_nobody_sent_this"');

    const onboarding = await browser.get('/app/onboarding');
    const providers = [...onboarding.html.matchAll(/<option value="([^"]+)">/g)].map((match) => match[1]!);
    const chosen = providers.at(-1)!;
    const bad = await browser.post('/app/provider-keys', { provider: chosen, key: 'sk has spaces in it', next: 'onboarding' });
    expect(bad.location).toBe('/app/onboarding#step-provider');
    const back = await browser.follow(bad);
    const key = fieldWithError(back.html, 'ob-key');
    expect(key.tied).toBe(true);
    expect(key.error).toContain('does not look like a provider key');
    expect(back.html).toContain(`<option value="${chosen}" selected>`);
    expect(back.html).not.toContain('sk has spaces');
    expect(back.html).not.toContain('class="problem"');
    // Once: a reload shows the form without the error.
    expect(fieldWithError((await browser.get('/app/onboarding')).html, 'ob-key').tied).toBe(false);
  });

  it('a form posted on an ended session keeps its input through sign-in, once; a provider key is never kept', async () => {
    const browser = new AppClient(router.url);
    await browser.signUp('kept@example.com', PASSWORD);
    await browser.get('/app/keys');
    browser.cookies.delete('router_session');
    const referer = { referer: `${router.url}/app/keys` };
    const posted = await browser.post('/app/keys', { name: 'kept laptop', expiresInDays: '30', monthlyRequests: '5' }, referer);
    expect(posted.location).toBe('/app/signin?ended=1&next=%2Fapp%2Fkeys');
    expect(browser.cookies.has('router_kept_form')).toBe(true);
    expect(decodeURIComponent(browser.cookies.get('router_kept_form')!)).not.toContain('kept laptop');
    const signin = await browser.follow(posted);
    expect(signin.html).toContain('Your session ended');
    const back = await browser.follow(await browser.post('/app/signin', { email: 'kept@example.com', password: PASSWORD, next: '/app/keys' }));
    expect(fieldWithError(back.html, 'key-name').tag).toContain('value="kept laptop"');
    expect(fieldWithError(back.html, 'key-cap').tag).toContain('value="5"');
    expect(back.html).toMatch(/<option value="30" selected>/);
    expect(back.html).toContain('What you typed is back in the form');
    // Nothing was created, and a reload shows the empty form: the input comes back once.
    expect(listedKeyIds(back.html)).toHaveLength(0);
    const reload = await browser.get('/app/keys');
    expect(fieldWithError(reload.html, 'key-name').tag).not.toContain('kept laptop');

    await browser.get('/app/provider-keys');
    const provider = /name="provider" value="([^"]+)"/.exec((await browser.get('/app/provider-keys')).html)![1]!;
    browser.cookies.delete('router_session');
    await browser.follow(await browser.post('/app/provider-keys', { provider, key: 'sk-never-kept-0123456789' }, { referer: `${router.url}/app/provider-keys` }));
    const again = await browser.follow(await browser.post('/app/signin', { email: 'kept@example.com', password: PASSWORD, next: '/app/provider-keys' }));
    expect(again.status).toBe(200);
    expect(again.html).not.toContain('sk-never-kept');
    expect(again.html).toContain('What you typed is back in the form');
  });
});
