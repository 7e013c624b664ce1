import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MESSAGE_MAX, SUBJECT_MAX, readSupportRequest, supportContact, supportMessage } from '../../../src/app/support-contact.js';
import { listProblems, removeConfigVariants, replaceOnce, writeConfigVariant } from '../config/config-variant.js';
import { afterAll } from 'vitest';

afterAll(removeConfigVariants);

describe('the operator contact (app.support)', () => {
  it('reads an email address (lower-cased) or an https URL, and nothing else', () => {
    expect(supportContact('Help@Operator.Example')).toEqual({ kind: 'email', address: 'help@operator.example', href: 'mailto:help@operator.example', label: 'help@operator.example' });
    expect(supportContact('https://help.example/new?from=router')).toMatchObject({ kind: 'url', href: 'https://help.example/new?from=router' });
    expect(supportContact(undefined)).toBeNull();
    expect(supportContact('http://help.example')).toBeNull();
    expect(supportContact('javascript:alert(1)')).toBeNull();
  });

  it('router check refuses a value that is neither, and accepts both', () => {
    // The base fixture has no app section: one is added after its first line.
    const at = 'edge:\n';
    const withSupport = (value: string) => writeConfigVariant({ 'server.yaml': replaceOnce(at, `app:\n  support: ${value}\n${at}`) });
    expect(listProblems(withSupport('support@example.com'))).toEqual([]);
    expect(listProblems(withSupport('https://help.example/desk'))).toEqual([]);
    for (const bad of ['the front desk', 'http://help.example', 'a@b', '"x<you@example.org>"']) {
      const problems = listProblems(withSupport(bad));
      expect(problems).toHaveLength(1);
      expect(problems[0]).toContain('app.support must be an email address (support@example.com) or an https:// URL');
    }
  });
});

describe('the contact form', () => {
  it('accepts any bounded subject and message, the subject always one line with no control character', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: SUBJECT_MAX }), fc.string({ maxLength: MESSAGE_MAX }), (subject, message) => {
        const read = readSupportRequest({ subject, message });
        if ('errors' in read) {
          expect(Object.keys(read.errors).length).toBeGreaterThan(0);
          return;
        }
        expect(read.request.subject).not.toMatch(/[\u0000-\u001f\u007f]/);
        expect(read.request.subject.length).toBeLessThanOrEqual(SUBJECT_MAX);
        expect(read.request.message.length).toBeLessThanOrEqual(MESSAGE_MAX);
        expect(read.request.message).not.toContain('\r');
      }),
    );
  });

  it('names each field that is empty or too long', () => {
    expect(readSupportRequest({})).toEqual({ errors: { subject: expect.any(String), message: expect.any(String) } });
    const long = readSupportRequest({ subject: 's'.repeat(SUBJECT_MAX + 1), message: 'm'.repeat(MESSAGE_MAX + 1) });
    expect('errors' in long && long.errors.subject).toContain(`${SUBJECT_MAX} characters`);
    expect('errors' in long && long.errors.message).toContain(`${MESSAGE_MAX} characters`);
  });

  it('mails the operator with replies to the person and marks the message confidential (kept out of the log transport)', () => {
    const message = supportMessage('help@operator.example', { subject: 'Hi', message: 'Hello' }, { email: 'me@example.com', organization: 'Acme', accountId: 'acc_1', plan: 'Free', role: 'owner' });
    expect(message).toMatchObject({ to: 'help@operator.example', replyTo: 'me@example.com', confidential: true, subject: '[Support] Hi' });
    expect(message.text).toContain('Hello');
  });
});
