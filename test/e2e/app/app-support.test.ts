/**
 * Support reachable: the operator's contact (`app.support`) on /app/support and where billing and
 * forgot-password lead, and the signed-in contact form that mails the operator through a real SMTP server
 * (an in-process sink): field errors at the fields, CSRF, the mail limits, post-redirect-get with a
 * confirmation, replies addressed to the person, and never a word of the message in the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../../support/smtp-sink.js';
import { AppClient, startAppRouter, type AppRouter } from '../app-harness.js';
import { silentLogger } from '../router-harness.js';
import { MAIL_LIMITS } from '../../../src/app/mail-limits.js';

const PASSWORD = 'correct horse battery staple';
const OPERATOR = 'help@operator.example';
const SECRET_WORDS = 'my-invoice-number-7731 and a very private detail';

describe('support with an email contact and mail on', () => {
  let sink: SmtpSink;
  let router: AppRouter;
  const logger = silentLogger();

  beforeAll(async () => {
    sink = await startSmtpSink();
    router = await startAppRouter({ env: { ROUTER_SMTP_URL: sink.url }, app: { support: OPERATOR, requireEmailVerification: false }, build: { logger } });
  });
  afterAll(async () => {
    await router?.close();
    await sink?.close();
  });

  it('shows the contact to everyone, and the form only to a signed-in person', async () => {
    const anonymous = await new AppClient(router.url).get('/app/support');
    expect(anonymous.status).toBe(200);
    expect(anonymous.html).toContain(`href="mailto:${OPERATOR}"`);
    expect(anonymous.html).toContain('to send a message from this page');
    expect(anonymous.html).not.toContain('id="contact-form"');
    const person = new AppClient(router.url);
    await person.signUp('asker@example.com', PASSWORD);
    const page = await person.get('/app/support');
    expect(page.html).toContain('id="contact-form"');
    expect(page.html).toContain('the reply comes to asker@example.com');
  });

  it('answers missing and over-long fields at the fields, keeping what was typed, and mails nothing', async () => {
    const person = new AppClient(router.url);
    await person.signUp('field-errors@example.com', PASSWORD);
    await person.get('/app/support');
    const empty = await person.post('/app/support/contact', { subject: '  ', message: '' });
    expect(empty.status).toBe(400);
    expect(empty.html).toContain('id="support-subject" name="subject"');
    expect(empty.html).toMatch(/id="support-subject"[^>]*aria-invalid="true" aria-describedby="support-subject-error"/);
    expect(empty.html).toMatch(/id="support-message"[^>]*aria-invalid="true"/);
    const long = await person.post('/app/support/contact', { subject: 'Too long', message: 'x'.repeat(4001) });
    expect(long.status).toBe(400);
    expect(long.html).toContain('Keep the message to 4000 characters (it has 4001)');
    expect(long.html).toContain('value="Too long"');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sink.mails.filter((mail) => mail.to.includes(OPERATOR))).toEqual([]);
  });

  it('refuses a post without the form token or from another site', async () => {
    const person = new AppClient(router.url);
    await person.signUp('csrf@example.com', PASSWORD);
    expect((await person.post('/app/support/contact', { csrf: 'wrong', subject: 'Hi', message: 'Hello' })).status).toBe(403);
    expect((await person.post('/app/support/contact', { subject: 'Hi', message: 'Hello' }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
  });

  it('mails the operator, with replies to the person, redirects to a confirmation, and logs no word of it', async () => {
    const person = new AppClient(router.url);
    await person.signUp('writer@example.com', PASSWORD);
    await person.get('/app/support');
    const sent = await person.post('/app/support/contact', { subject: 'Line one\r\nBcc: victim@example.com', message: `Hello,\r\n${SECRET_WORDS}` });
    expect(sent).toMatchObject({ status: 303, location: '/app/support?sent=1#contact' });
    const confirmed = await person.follow(sent);
    expect(confirmed.html).toContain(`Your message was sent to ${OPERATOR}. The reply will come to writer@example.com.`);
    const mail = await sink.waitFor(OPERATOR, /^\[Support\] Line one Bcc: victim@example.com$/);
    // The subject's line break never became a header: one recipient, the operator.
    expect(mail.to).toEqual([OPERATOR]);
    expect(mail.replyTo).toBe('writer@example.com');
    expect(mail.text).toContain('From: writer@example.com (owner of writer@example.com');
    expect(mail.text).toContain(SECRET_WORDS);
    const logged = logger.lines.join('\n');
    expect(logged).not.toContain('invoice-number-7731');
    expect(logged).not.toContain('Line one');
  });

  it('is counted by the mail limits per person: over the limit the form says so and keeps the message', async () => {
    const person = new AppClient(router.url);
    await person.signUp('chatty@example.com', PASSWORD);
    await person.get('/app/support');
    const limit = MAIL_LIMITS.support.perRecipient;
    for (let i = 0; i < limit; i++) expect((await person.post('/app/support/contact', { subject: `Try ${i}`, message: 'Hello' })).status).toBe(303);
    const refused = await person.post('/app/support/contact', { subject: 'One more', message: 'Still there?' });
    expect(refused.status).toBe(429);
    expect(refused.html).toContain('You have sent the most messages this form takes in an hour');
    expect(refused.html).toContain('Still there?');
    // Another person is not silenced by the first one's count.
    const other = new AppClient(router.url);
    await other.signUp('patient@example.com', PASSWORD);
    await other.get('/app/support');
    expect((await other.post('/app/support/contact', { subject: 'Hello', message: 'Hi' })).status).toBe(303);
  });

  it('billing (online billing off) leads to the form with the plan asked for as the subject', async () => {
    const person = new AppClient(router.url);
    await person.signUp('upgrade@example.com', PASSWORD);
    const billing = await person.get('/app/billing?plan=pro');
    expect(billing.html).toContain('href="/app/support?subject=Plan%20change%3A%20Pro#contact"');
    expect(billing.html).toContain(`href="mailto:${OPERATOR}"`);
    const support = await person.get('/app/support?subject=Plan%20change%3A%20Pro');
    expect(support.html).toContain('value="Plan change: Pro"');
  });
});

describe('support with other contacts', () => {
  let withUrl: AppRouter;
  let none: AppRouter;
  let mailOff: AppRouter;
  beforeAll(async () => {
    [withUrl, none, mailOff] = await Promise.all([
      startAppRouter({ app: { support: 'https://help.operator.example/new' } }),
      startAppRouter(),
      startAppRouter({ app: { support: OPERATOR } }),
    ]);
  });
  afterAll(async () => Promise.all([withUrl?.close(), none?.close(), mailOff?.close()]));

  it('a help-desk URL is linked, with no form, and a post to the form is refused', async () => {
    const person = new AppClient(withUrl.url);
    await person.signUp('url@example.com', PASSWORD);
    const page = await person.get('/app/support');
    expect(page.html).toContain('Ask for help at <a href="https://help.operator.example/new">');
    expect(page.html).not.toContain('id="contact-form"');
    expect((await person.post('/app/support/contact', { subject: 'Hi', message: 'Hello' })).status).toBe(409);
    expect((await new AppClient(withUrl.url).get('/app/forgot')).html).toContain('Ask at <a href="https://help.operator.example/new">');
  });

  it('no contact set: the page says so rather than pointing nowhere', async () => {
    const page = await new AppClient(none.url).get('/app/support');
    expect(page.html).toContain('This service has not published a support contact yet.');
  });

  it('mail off: forgot-password and the support page give the address to write to, and no form that cannot deliver', async () => {
    const forgot = await new AppClient(mailOff.url).get('/app/forgot');
    expect(forgot.html).toContain(`Write to <a href="mailto:${OPERATOR}">${OPERATOR}</a> from the address you sign in with`);
    const person = new AppClient(mailOff.url);
    await person.signUp('mail-off@example.com', PASSWORD);
    const page = await person.get('/app/support');
    expect(page.html).toContain(`href="mailto:${OPERATOR}"`);
    expect(page.html).not.toContain('id="contact-form"');
  });
});
