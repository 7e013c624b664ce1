/**
 * A local SMTP server (the `smtp-server` package) in the test's process: it accepts every message
 * (authentication optional, no TLS) and keeps it decoded enough to read: recipients, subject, text.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SunkMail {
  to: string[];
  subject: string;
  /** The Reply-To header's address, when the message has one. */
  replyTo: string | null;
  text: string;
  /** The AUTH username the client used, if any. */
  user: string | null;
}

export interface SmtpSink {
  url: string;
  mails: SunkMail[];
  /** Waits until a mail to `to` whose subject matches arrives. */
  waitFor(to: string, subject: RegExp, timeoutMs?: number): Promise<SunkMail>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: SunkMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth: (auth, _session, done) => done(null, { user: auth.username }),
    onData: (stream, session, done) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const [head = '', ...body] = raw.split(/\r?\n\r?\n/);
        const headers = head.replace(/\r?\n[ \t]+/g, ' ');
        const subject = decodeHeader(/^Subject: (.*)$/im.exec(headers)?.[1] ?? '');
        const qp = /^Content-Transfer-Encoding: quoted-printable/im.test(headers);
        const text = body.join('\n\n');
        mails.push({
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          subject,
          replyTo: /^Reply-To: (?:.*<)?([^<>\s]+@[^<>\s]+?)>?\s*$/im.exec(headers)?.[1] ?? null,
          text: qp ? decodeQuotedPrintable(text) : text,
          user: typeof session.user === 'string' ? session.user : null,
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://sink-user:sink-pass-9f3e@127.0.0.1:${port}`,
    mails,
    async waitFor(to, subject, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = mails.find((mail) => mail.to.includes(to) && subject.test(mail.subject));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} matching ${subject} (got: ${mails.map((mail) => `${mail.to} ${mail.subject}`).join('; ')})`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function decodeQuotedPrintable(text: string): string {
  return Buffer.from(text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= or ?B?) in a header. */
function decodeHeader(value: string): string {
  return value.replace(/=\?UTF-8\?([QB])\?([^?]*)\?=\s*/gi, (_, encoding: string, data: string) =>
    encoding.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')),
  ).trim();
}
