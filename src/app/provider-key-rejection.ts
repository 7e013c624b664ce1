/**
 * Whether an account's stored provider key is currently rejected by its provider: the provider's last
 * 401, 402 or 403 to it (live traffic or the Test button; routing/credential-health.ts, in this
 * instance's memory), unless the key was replaced since. Cleared by an accepted request or Test.
 * The provider-keys page shows it as a badge ("failing since …", in the person's zone); the app's home
 * keeps the alert open while it holds.
 */
import type { CredentialHealth } from '../routing/credential-health.js';

export function providerKeyRejection(
  health: CredentialHealth,
  accountId: string,
  key: { providerId: string; updatedAt: string },
): { status: number; at: string } | null {
  const rejection = health.rejection(accountId, key.providerId);
  if (!rejection || rejection.at < Date.parse(key.updatedAt)) return null;
  return { status: rejection.status, at: new Date(rejection.at).toISOString() };
}
