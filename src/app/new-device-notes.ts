/**
 * Sign-ins from a new device. A browser keeps a random device id in a long-lived HttpOnly cookie; the
 * account's known devices are its `new_device` alerts (subject: the id's hash), recorded once each. A
 * sign-in from a device the account has not seen is noted on the security page and mailed (when the
 * account wants that by email), except the account's very first device, which is simply remembered.
 */
import { getCookie, getRequestHeader, setCookie, type H3Event } from 'h3';
import { hashToken, newToken } from '../core/secret-tokens.js';
import { newDeviceMessage } from '../mail/mail-messages.js';
import { deviceName } from './device-name.js';
import { mailAlertTo } from '../alerts/alert-mail.js';
import type { WebDeps } from './web-deps.js';

const DEVICE_COOKIE_DAYS = 400;

export async function noteSignInDevice(deps: WebDeps, event: H3Event, accountId: string): Promise<void> {
  const cookieName = deps.paths.secure ? '__Host-router_device' : 'router_device';
  let deviceId = getCookie(event, cookieName) ?? '';
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(deviceId)) deviceId = newToken();
  setCookie(event, cookieName, deviceId, { httpOnly: true, secure: deps.paths.secure, sameSite: 'lax', path: '/', maxAge: DEVICE_COOKIE_DAYS * 86_400 });
  const at = new Date(deps.clock.now()).toISOString();
  const browser = deviceName(getRequestHeader(event, 'user-agent'));
  const ip = deps.clientAddress(event);
  const known = (await deps.store.listAlerts(accountId, 500)).some((alert) => alert.kind === 'new_device');
  const recorded = await deps.store.recordAlert(
    { accountId, kind: 'new_device', subject: hashToken(deviceId).slice(0, 32), period: 'once', level: 0, details: { browser, ip, first: known ? 0 : 1 } },
    at,
  );
  if (!recorded || !known) return;
  await deps.store.recordAuditEvent({ actor: 'app', action: 'signin.new_device', accountId, details: { ip, device: browser } });
  mailAlertTo(deps, accountId, 'new_device', (email) => newDeviceMessage(email, { browser, ip, at }, `${deps.config.server.appUrl}/security`));
}
