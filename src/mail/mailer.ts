/**
 * Sends mail off the request path. A page hands over a job (`sendLater`) and answers at once: the job
 * looks up what it needs, builds the message and sends it in the background, so a page that mails and a
 * page that does not (an unknown address) take the same time, and a mail server that is slow or down never
 * slows or fails a page. A failure is logged by its error code only: never the recipient, the text (it holds
 * single-use links) or the SMTP URL (it holds credentials). `close()` waits for jobs in flight (bounded).
 */
import type { ConsolaInstance } from 'consola';
import type { Transporter } from 'nodemailer';
import type { MailConfig } from '../config/types.js';
import { parseEmailAddress } from '../core/email-address.js';

export interface MailMessage {
  /** One plain address (core/email-address.ts); a message to anything else is not sent. */
  to: string;
  subject: string;
  text: string;
  /** Where replies go (one plain address, checked like `to`), e.g. the person who wrote to support. */
  replyTo?: string;
  /** A person's own words (a support message): the `log` transport says that one was sent, never what it says. */
  confidential?: boolean;
}

/** How a message leaves: the SMTP transport, the log, or a test's sink. */
export type MailTransport = (message: MailMessage & { from: string }) => Promise<void>;

export interface Mailer {
  /** False with transport `none`: nothing is sent, and pages offer what works without mail. */
  readonly sends: boolean;
  /** Runs `compose` and sends what it returns (null: nothing to send) in the background. */
  sendLater(label: string, compose: () => Promise<MailMessage | null>): void;
  /** Waits for the jobs in flight, at most `timeoutMs`, then closes the transport. */
  close(timeoutMs?: number): Promise<void>;
}

const SMTP_TIMEOUT_MS = 15_000;

export function createMailer(config: MailConfig, logger: ConsolaInstance, transport?: MailTransport): Mailer {
  if (transport) return new QueuedMailer(config.from, transport, logger, () => {});
  if (config.transport === 'none') return new QueuedMailer(config.from, null, logger, () => {});
  if (config.transport === 'log') {
    // Development only: the operator reads the message (and any link in it) in the log.
    return new QueuedMailer(
      config.from,
      async (message) => logger.info(message.confidential ? `[mail] to ${message.to}: a message a person wrote (not shown in the log)` : `[mail] to ${message.to}: ${message.subject}\n${message.text}`),
      logger,
      () => {},
    );
  }
  if (!config.smtpUrl) throw new Error('app.mail.transport smtp needs app.mail.smtpUrl (ROUTER_SMTP_URL)');
  const smtpUrl = config.smtpUrl;
  // nodemailer is loaded with the first message, so an instance that never mails (the default
  // transport is none) does not carry it (3 MB of heap imported alone).
  let smtp: Promise<Transporter> | undefined;
  const transporter = () =>
    (smtp ??= import('nodemailer').then(({ default: nodemailer }) =>
      // An smtp:// URL upgrades with STARTTLS when the server offers it (nodemailer's default); smtps:// is TLS from the start.
      nodemailer.createTransport({
        url: smtpUrl.reveal(),
        connectionTimeout: SMTP_TIMEOUT_MS,
        greetingTimeout: SMTP_TIMEOUT_MS,
        socketTimeout: SMTP_TIMEOUT_MS,
        logger: false,
        debug: false,
      }),
    ));
  const send: MailTransport = async (message) => {
    // An address object, not a string: nodemailer parses a string as an address list (display names,
    // groups, several recipients), an object's address it takes as the one mailbox it is.
    await (await transporter()).sendMail({
      from: message.from,
      to: { name: '', address: message.to },
      ...(message.replyTo ? { replyTo: { name: '', address: message.replyTo } } : {}),
      subject: message.subject,
      text: message.text,
    });
  };
  // A transport that never loaded has nothing to close (its failure was logged with the message that needed it).
  return new QueuedMailer(config.from, send, logger, () => void smtp?.then((transport) => transport.close(), () => undefined));
}

class QueuedMailer implements Mailer {
  readonly #inFlight = new Set<Promise<void>>();

  constructor(
    private readonly from: string,
    private readonly transport: MailTransport | null,
    private readonly logger: ConsolaInstance,
    private readonly closeTransport: () => void,
  ) {}

  get sends(): boolean {
    return this.transport !== null;
  }

  sendLater(label: string, compose: () => Promise<MailMessage | null>): void {
    const transport = this.transport;
    if (!transport) return;
    const job = (async () => {
      // Yield first, so the page's own work and answer never wait on the job's look-ups.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const message = await compose();
      if (!message) return;
      // Stored before addresses were checked strictly, or built wrong: never handed to a relay.
      const to = parseEmailAddress(message.to);
      if (to === null) throw new NotOneAddressError();
      const replyTo = message.replyTo === undefined ? undefined : parseEmailAddress(message.replyTo);
      if (replyTo === null) throw new NotOneAddressError();
      await transport({ ...message, to, ...(replyTo ? { replyTo } : {}), from: this.from });
    })()
      .catch((error: unknown) => this.logger.warn(`mail not sent (${label}): ${mailFailure(error)}`))
      .finally(() => this.#inFlight.delete(job));
    this.#inFlight.add(job);
  }

  async close(timeoutMs = 10_000): Promise<void> {
    if (this.#inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref();
      });
      await Promise.race([Promise.allSettled([...this.#inFlight]), deadline]);
      clearTimeout(timer);
    }
    this.closeTransport();
  }
}

class NotOneAddressError extends Error {
  readonly code = 'NOT_ONE_ADDRESS';
}

/**
 * What a failure may say in the log: nodemailer's error code and the SMTP reply code, nothing of the
 * message (an SMTP server's reply can quote the recipient, and connection errors can quote the URL).
 */
export function mailFailure(error: unknown): string {
  const { code, responseCode, name } = (error ?? {}) as { code?: unknown; responseCode?: unknown; name?: unknown };
  const parts = [typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code) ? code : typeof name === 'string' && /^\w{1,40}$/.test(name) ? name : 'error'];
  if (typeof responseCode === 'number') parts.push(`SMTP ${responseCode}`);
  return parts.join(', ');
}
