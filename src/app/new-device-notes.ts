/**
 * Sign-ins from a new device. A browser keeps a random device id in its device cookie (device-cookie.ts); the
 * account's known devices are its `new_device` alerts (subject: the id's hash), recorded once each. A
 * sign-in from a device the account has not seen is noted on the security page and mailed (when the
 * account wants that by email), except the account's very first device, which is simply remembered.
 */
import { getRequestHeader, type H3Event } from 'h3';
import { publicLinks } from '../config/public-links.js';
import { hashToken } from '../core/secret-tokens.js';
import { newDeviceMessage } from '../mail/mail-messages.js';
import { deviceName } from './device-name.js';
import { mailAlertTo } from '../alerts/alert-mail.js';
import type { WebDeps } from './web-deps.js';

/** `deviceId`: the id of the device cookie the sign-in just set (DeviceCookies.remember). */
export async function noteSignInDevice(deps: WebDeps, event: H3Event, accountId: string, deviceId: string): Promise<void> {
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
  const { appUrl } = publicLinks(deps.config.server, getRequestHeader(event, 'host'));
  mailAlertTo(deps, accountId, 'new_device', (email) => newDeviceMessage(email, { browser, ip, at }, `${appUrl}/security`));
}
