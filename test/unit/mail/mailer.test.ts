/**
 * The mailer sends off the request path and logs a failure by its codes only: never the recipient, the
 * message (it holds single-use links) or the SMTP URL (it holds credentials).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Secret } from '../../../src/config/secret.js';
import { createMailer, mailFailure } from '../../../src/mail/mailer.js';
import { freePort, silentLogger } from '../../e2e/router-harness.js';

const RECIPIENT = 'private.person@example.com';
const LINK = 'http://127.0.0.1:8787/app/link?token=single-use-token-abc123';
const SMTP_URL = 'smtp://mailer:Sup3rSecretPw@127.0.0.1';

describe('mail failures', () => {
  it('are logged with the error code and SMTP reply code, not the recipient, link or SMTP URL the error quotes', async () => {
    const logger = silentLogger();
    const failing = Object.assign(new Error(`Invalid login for ${RECIPIENT} at ${SMTP_URL}: ${LINK}`), { code: 'EAUTH', responseCode: 535, response: `535 ${RECIPIENT}` });
    const mailer = createMailer({ transport: 'smtp', from: 'router@example.com' }, logger, async () => {
      throw failing;
    });
    mailer.sendLater('password reset', async () => ({ to: RECIPIENT, subject: 'Reset your password', text: LINK }));
    await mailer.close();
    expect(logger.lines).toEqual(['mail not sent (password reset): EAUTH, SMTP 535']);
  });

  it('through SMTP to a server that is not there: logged without its credentials, and close() returns', async () => {
    const logger = silentLogger();
    const url = `smtp://mailer:Sup3rSecretPw@127.0.0.1:${await freePort()}`;
    const mailer = createMailer({ transport: 'smtp', from: 'router@example.com', smtpUrl: new Secret(url) }, logger);
    mailer.sendLater('email verification', async () => ({ to: RECIPIENT, subject: 'Confirm your email address', text: LINK }));
    await mailer.close(10_000);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatch(/^mail not sent \(email verification\): [A-Z_]+/);
    for (const secret of ['Sup3rSecretPw', RECIPIENT, 'single-use-token', url]) expect(logger.lines[0]).not.toContain(secret);
  });

  it('a failure while composing is logged the same way, and a page never waits for it', async () => {
    const logger = silentLogger();
    const mailer = createMailer({ transport: 'log', from: 'router@example.com' }, logger, async () => {});
    let composed = false;
    mailer.sendLater('alert', async () => {
      composed = true;
      throw new Error(`store down while reading ${RECIPIENT}`);
    });
    expect(composed).toBe(false);
    await mailer.close();
    expect(logger.lines).toEqual(['mail not sent (alert): Error']);
  });

  it('hands the transport one plain address, and never a recipient that is not one (list syntax, display names, bare names)', async () => {
    const logger = silentLogger();
    const sent: string[] = [];
    const mailer = createMailer({ transport: 'smtp', from: 'router@example.com' }, logger, async (message) => void sent.push(message.to));
    for (const to of ['x<you@example.org>', 'x,you@example.org', 'g:you@example.org;', 'you', ' Private.Person@Example.com ']) {
      mailer.sendLater('password reset', async () => ({ to, subject: 'Reset your password', text: LINK }));
    }
    await mailer.close();
    expect(sent).toEqual([RECIPIENT]);
    expect(logger.lines).toEqual(Array(4).fill('mail not sent (password reset): NOT_ONE_ADDRESS'));
  });

  it('says only a code-shaped word and an SMTP number, whatever the error holds (property)', () => {
    const anything = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constant(undefined), fc.object());
    fc.assert(
      fc.property(fc.record({ code: anything, responseCode: anything, name: anything, message: fc.string() }, { requiredKeys: [] }), (error) => {
        expect(mailFailure(error)).toMatch(/^\w{1,40}(, SMTP -?\d+(\.\d+)?(e[+-]?\d+)?)?$/);
      }),
    );
    expect(mailFailure(null)).toBe('error');
  });
});
