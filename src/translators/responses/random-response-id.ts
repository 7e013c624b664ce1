/**
 * Mints the ids of responses and their output items (`resp_…`, `msg_…`, `fc_…`, `ctc_…`, `rs_…`) and of
 * tool calls an upstream left without one (`call_…`). Random rather than sequential so ids never
 * collide across router instances; translators take an id factory so tests can pass a deterministic one.
 */
import { randomBytes } from 'node:crypto';

export type ResponseIdPrefix = 'resp' | 'msg' | 'fc' | 'ctc' | 'rs' | 'call';

export function randomResponseId(prefix: ResponseIdPrefix): string {
  return `${prefix}_${randomBytes(24).toString('hex')}`;
}
