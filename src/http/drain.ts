/**
 * The instance's drain (graceful shutdown) as the request pipeline sees it: whether it is draining (new
 * /v1 requests are turned away with 503 and /readyz says `draining`), and a signal that fires when the
 * drain deadline has passed (or a second signal cut it short), which ends every request still running:
 * its upstream is aborted, a committed stream ends with its in-stream error event, anything else gets
 * 503 server_shutting_down. The HTTP server (start-server.ts) drives it.
 */
import { RouterError } from '../core/errors.js';

export class Drain {
  #draining = false;
  readonly #deadline = new AbortController();

  get draining(): boolean {
    return this.#draining;
  }

  /** Fires when in-flight requests must end now. */
  get deadline(): AbortSignal {
    return this.#deadline.signal;
  }

  begin(): void {
    this.#draining = true;
  }

  /** The deadline passed, or a second signal asked to stop now. */
  cut(): void {
    this.#draining = true;
    if (!this.#deadline.signal.aborted) this.#deadline.abort(new Error('drain deadline'));
  }
}

export function shuttingDown(phase: 'refused' | 'ended'): RouterError {
  const message =
    phase === 'refused'
      ? 'This router instance is shutting down and takes no new requests. Retry; another instance will answer.'
      : 'This router instance shut down before the request finished. Retry; another instance will answer.';
  return new RouterError('server_shutting_down', message, { headers: { 'retry-after': '1', connection: 'close' } });
}
