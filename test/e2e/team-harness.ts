/**
 * An organization with one person per role, made through the app as people would (sign-up, then
 * invitations accepted by choosing a password; with mail off the Members page shows the admin the link),
 * and the one question the role tests ask of every answer: was it the 403 of the role gate?
 */
import { expect } from 'vitest';
import type { Role } from '../../src/stores/people-store.js';
import { AppClient, type AppRouter, type Page } from './app-harness.js';

export const PASSWORD = 'correct horse battery staple';
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;

export type Team = Record<Role, AppClient>;

/** The owner signs up as `owner@<domain>`; admin, member and viewer join by invitation. */
export async function startTeam(router: AppRouter, domain: string): Promise<Team> {
  const owner = new AppClient(router.url);
  await owner.signUp(`owner@${domain}`, PASSWORD);
  const team = { owner } as Team;
  for (const role of ['admin', 'member', 'viewer'] as const) {
    await owner.get('/app/members');
    const invited = await owner.post('/app/members/invite', { email: `${role}@${domain}`, role });
    const link = /<code id="invitation-link" class="key">([^<]+)<\/code>/.exec(invited.html)?.[1];
    expect(link, invited.html.slice(0, 1500)).toBeDefined();
    const url = new URL(link!.replace(/&amp;/g, '&'));
    const client = new AppClient(router.url);
    await client.get(url.pathname + url.search);
    const joined = await client.post('/app/invitations/accept', { token: url.searchParams.get('token')!, password: PASSWORD });
    expect(joined.status).toBe(303);
    await client.follow(joined);
    team[role] = client;
  }
  return team;
}

/** The role gate's refusal (page-kit.ts), not some other 403 such as a bad form token. */
export function refusedForRole(page: Page): boolean {
  return page.status === 403 && page.html.includes('Not allowed for your role');
}

/** The person's id on the Members page. */
export function personIdOf(html: string, email: string): string {
  const id = new RegExp(`<tr id="member-(psn_[0-9a-f]+)">\\s*<td>${email.replaceAll('.', '\\.')}`).exec(html)?.[1];
  if (!id) throw new Error(`${email} is not listed`);
  return id;
}

/** An option's value in a select, by the words it shows. */
export function optionValue(html: string, label: string): string {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const value = new RegExp(`<option value="([^"]+)"[^>]*>${escaped}</option>`).exec(html)?.[1];
  if (!value) throw new Error(`no option ${label}`);
  return value;
}
