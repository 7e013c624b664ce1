/**
 * Mail no stranger can turn into a weapon, over HTTP with a real SMTP server in the test: 12 reset
 * requests, 12 sign-ups with a taken address and 12 verification resends send at most the documented
 * number of mails (app/mail-limits.ts, docs/app.md#email), with only the newest link working; one client
 * address is held to its own limit across recipients; and no email field takes address-list syntax.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIL_LIMITS, MAILS_PER_ADDRESS } from '../../../src/app/mail-limits.js';
import { startSmtpSink, type SmtpSink } from '../../support/smtp-sink.js';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';

const PASSWORD = 'correct horse battery staple';
const LIST_SYNTAX = ['x<you@example.org>', 'x,you@example.org', 'g:you@example.org;', '"x" <you@example.org>', 'you'];
const linkIn = (text: string) => /http:\/\/127\.0\.0\.1:\d+(\/app\/link\?token=[A-Za-z0-9_-]+)/.exec(text)?.[1] ?? null;
const from = (address: string) => ({ 'x-forwarded-for': address });

let sink: SmtpSink;
let router: AppRouter;
beforeAll(async () => {
  sink = await startSmtpSink();
  // The tests connect from 127.0.0.1, listed as the proxy: each test is its own client address (X-Forwarded-For).
  router = await startAppRouter({ env: { ROUTER_SMTP_URL: sink.url }, patch: { server: (doc) => void (doc.trustedProxies = ['127.0.0.1/32', '::1']) } });
}, 60_000);
afterAll(async () => {
  await router?.close();
  await sink?.close();
});

const mailsTo = (to: string, subject: RegExp) => sink.mails.filter((mail) => mail.to.includes(to) && subject.test(mail.subject));
/** The mails to `to` once the background jobs are done: `expected` arrived and nothing more for a while. */
async function settled(to: string, subject: RegExp, expected: number) {
  const deadline = Date.now() + 10_000;
  while (mailsTo(to, subject).length < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return mailsTo(to, subject);
}
/** How many of these mails' links still open a form (200) rather than "not valid" (410). */
async function workingLinks(mails: { text: string }[]) {
  const statuses = await Promise.all(mails.map(async (mail) => (await new AppClient(router.url).get(linkIn(mail.text)!)).status));
  expect(statuses.every((status) => status === 200 || status === 410)).toBe(true);
  return statuses.filter((status) => status === 200).length;
}
const newLogin = (email: string) => router.server.runtime.store.createAccountWithLogin({ email, plan: 'free', passwordHash: 'not-a-usable-hash' }, 'test');

describe('mail limits', () => {
  it('12 forgot-password posts for one address send the documented number of links, the same page each time, and only the newest link works', async () => {
    await newLogin('forgot.limit@example.com');
    const client = new AppClient(router.url);
    await client.get('/app/forgot', from('198.51.100.1'));
    const pages = [];
    for (let i = 0; i < 12; i++) pages.push(await client.post('/app/forgot', { email: 'forgot.limit@example.com' }, from('198.51.100.1')));
    const shape = (html: string) => html.replace(/name="csrf" value="[^"]*"/g, '');
    expect(new Set(pages.map((page) => `${page.status} ${shape(page.html)}`)).size).toBe(1);
    expect(pages[0]!.status).toBe(200);
    const mails = await settled('forgot.limit@example.com', /^Reset your password$/, MAIL_LIMITS.reset.perRecipient);
    expect(mails).toHaveLength(MAIL_LIMITS.reset.perRecipient);
    expect(await workingLinks(mails)).toBe(1);
  }, 60_000);

  it('12 sign-ups with a taken address mail its owner once a day, and answer every one as a new address', async () => {
    await newLogin('taken.limit@example.com');
    const client = new AppClient(router.url);
    await client.get('/app/signup', from('198.51.100.2'));
    for (let i = 0; i < 12; i++) {
      const page = await client.post('/app/signup', { email: 'taken.limit@example.com', password: `attacker passphrase ${i}` }, from('198.51.100.2'));
      expect(page.status).toBe(200);
      expect(page.html).toContain('Next step: sign in');
    }
    expect(await settled('taken.limit@example.com', /tried to sign up/, 1)).toHaveLength(MAIL_LIMITS['signup-attempt'].perRecipient);
  }, 90_000);

  it('12 verification resends send the documented number of links in all (the sign-up’s included), and only the newest works', async () => {
    const client = new AppClient(router.url);
    await client.get('/app/signup', from('198.51.100.3'));
    await client.post('/app/signup', { email: 'resend.limit@example.com', password: PASSWORD }, from('198.51.100.3'));
    await client.follow(await client.post('/app/signin', { email: 'resend.limit@example.com', password: PASSWORD }, from('198.51.100.3')));
    await sink.waitFor('resend.limit@example.com', /^Confirm your email address$/);
    const answers = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const page = await client.post('/app/verify/resend', {}, from('198.51.100.3'));
      answers.add(`${page.status} ${page.html.replace(/name="csrf" value="[^"]*"/g, '')}`);
    }
    expect(answers.size).toBe(1);
    const mails = await settled('resend.limit@example.com', /^Confirm your email address$/, MAIL_LIMITS.verify.perRecipient);
    expect(mails).toHaveLength(MAIL_LIMITS.verify.perRecipient);
    expect(await workingLinks(mails)).toBe(1);
  }, 60_000);

  it('one client address causes at most its hourly number of mails across recipients; another address is counted on its own', async () => {
    const emails = Array.from({ length: MAILS_PER_ADDRESS + 2 }, (_, i) => `spread${i}@example.com`);
    for (const email of emails) await newLogin(email);
    const client = new AppClient(router.url);
    await client.get('/app/forgot', from('198.51.100.4'));
    for (const email of emails) expect((await client.post('/app/forgot', { email }, from('198.51.100.4'))).status).toBe(200);
    const deadline = Date.now() + 10_000;
    const sent = () => sink.mails.filter((mail) => emails.some((email) => mail.to.includes(email))).length;
    while (sent() < MAILS_PER_ADDRESS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(sent()).toBe(MAILS_PER_ADDRESS);
    await client.post('/app/forgot', { email: 'spread0@example.com' }, from('198.51.100.5'));
    await settled('spread0@example.com', /^Reset your password$/, 2);
    expect(sent()).toBe(MAILS_PER_ADDRESS + 1);
  }, 60_000);
});

describe('one plain address at every email field', () => {
  it('sign-up, sign-in and forgot password refuse address-list syntax at the field; nothing is stored or mailed', async () => {
    const client = new AppClient(router.url);
    for (const email of LIST_SYNTAX) {
      for (const [form, fields] of [['signup', { email, password: PASSWORD }], ['signin', { email, password: PASSWORD }], ['forgot', { email }]] as const) {
        await client.get(`/app/${form}`, from('198.51.100.6'));
        const page = await client.post(`/app/${form}`, fields, from('198.51.100.6'));
        expect(page.status, `${form} ${email}`).toBe(400);
        expect(page.html).toContain('id="email-error"');
        expect(page.html).toContain('Enter one valid email address');
      }
    }
    expect(await router.server.runtime.store.findLoginByEmail('you@example.org')).toBeNull();
    expect((await router.server.runtime.store.listAccounts()).filter((account) => account.email.includes('you'))).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sink.mails.filter((mail) => mail.to.some((to) => to.includes('you')))).toEqual([]);
  }, 60_000);
});
