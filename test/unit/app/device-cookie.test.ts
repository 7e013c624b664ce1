import fc from 'fast-check';
import type { H3Event } from 'h3';
import { describe, expect, it } from 'vitest';
import { DeviceCookies, MAX_ACCOUNTS, parseDeviceCookie } from '../../../src/app/device-cookie.js';

/** Just enough of an h3 event for getCookie/setCookie: a cookie header in, Set-Cookie lines out. */
function fakeEvent(cookie?: string): H3Event & { setCookies: string[] } {
  const setCookies: string[] = [];
  const headers: Record<string, unknown> = {};
  return {
    setCookies,
    node: {
      req: { headers: cookie ? { cookie } : {} },
      res: {
        getHeader: (name: string) => headers[name.toLowerCase()],
        setHeader: (name: string, value: unknown) => {
          headers[name.toLowerCase()] = value;
          setCookies.splice(0, setCookies.length, ...(Array.isArray(value) ? value : [String(value)]));
        },
      },
    },
  } as unknown as H3Event & { setCookies: string[] };
}

/** The browser's next request after this response: its cookie header carries what was set. */
function nextRequest(cookies: DeviceCookies, response: { setCookies: string[] }) {
  const line = response.setCookies.find((l) => l.startsWith(`${cookies.cookieName}=`))!;
  return fakeEvent(line.split(';')[0]);
}

describe('device cookie', () => {
  const cookies = new DeviceCookies('server-secret-one', true);

  it('is HttpOnly, Secure on https, SameSite and __Host- bound, and vouches only for the account it was set for', () => {
    const first = fakeEvent();
    cookies.remember(first, 'acct_ada');
    expect(first.setCookies[0]).toMatch(/^__Host-router_device=[^;]+;.*HttpOnly/);
    expect(first.setCookies[0]).toMatch(/Secure/);
    expect(first.setCookies[0]).toMatch(/SameSite=Lax/);
    const presented = cookies.read(nextRequest(cookies, first));
    expect(cookies.vouchesFor(presented, 'acct_ada')).toBe(true);
    expect(cookies.vouchesFor(presented, 'acct_bob')).toBe(false);
    expect(new DeviceCookies('x', false).cookieName).toBe('router_device');
  });

  it('is signed with the server secret: another secret, another device id or an edited MAC vouches for nothing', () => {
    const first = fakeEvent();
    const deviceId = cookies.remember(first, 'acct_ada');
    const presented = cookies.read(nextRequest(cookies, first))!;
    expect(new DeviceCookies('server-secret-two', true).vouchesFor(presented, 'acct_ada')).toBe(false);
    expect(cookies.vouchesFor({ deviceId: `${deviceId.slice(1)}A`, macs: presented.macs }, 'acct_ada')).toBe(false);
    const mac = presented.macs[0]!;
    const edited = `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    expect(cookies.vouchesFor({ deviceId, macs: [edited] }, 'acct_ada')).toBe(false);
  });

  it('keeps one device id and the latest MAX_ACCOUNTS accounts, the newest first', () => {
    let event = fakeEvent();
    const deviceId = cookies.remember(event, 'acct_0');
    for (let i = 1; i <= MAX_ACCOUNTS; i++) {
      event = nextRequest(cookies, event);
      expect(cookies.remember(event, `acct_${i}`)).toBe(deviceId);
    }
    const presented = cookies.read(nextRequest(cookies, event))!;
    expect(presented.macs).toHaveLength(MAX_ACCOUNTS);
    expect(cookies.vouchesFor(presented, 'acct_0')).toBe(false);
    for (let i = 1; i <= MAX_ACCOUNTS; i++) expect(cookies.vouchesFor(presented, `acct_${i}`)).toBe(true);
  });

  it('takes a bare device id (the cookie before entries) as a device with no account, and anything malformed as no cookie', () => {
    expect(parseDeviceCookie('abcdefghijklmnopqrstuvwxyz012345')).toEqual({ deviceId: 'abcdefghijklmnopqrstuvwxyz012345', macs: [] });
    for (const bad of [undefined, '', 'short', 'a'.repeat(400), 'bad id with spaces and more.x']) expect(parseDeviceCookie(bad)).toBeNull();
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (value) => {
        const parsed = parseDeviceCookie(value);
        if (parsed) expect(parsed.macs.length).toBeLessThanOrEqual(MAX_ACCOUNTS);
        expect(cookies.vouchesFor(parsed, 'acct_ada')).toBe(false);
      }),
    );
  });
});
