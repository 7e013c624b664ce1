/**
 * The account app over real HTTP: a router whose baseUrl/appUrl/docsUrl are its own address (so every
 * link it emits can be followed), and a small cookie-keeping client that behaves like a browser
 * submitting forms (Origin header, the form's CSRF token, 303 redirects followed by hand).
 */
import { freePort, onAFreePort, startTestRouter, type TestRouter, type YamlPatch } from './router-harness.js';
import type { Clock } from '../../src/core/clock.js';
import type { BuildOptions } from '../../src/runtime/build-runtime.js';

export interface AppRouter extends TestRouter {
  appUrl: string;
}

type AppRouterOptions = { patch?: YamlPatch; app?: Record<string, unknown>; clock?: Clock; env?: Record<string, string>; build?: BuildOptions };

/** The router's own address is in its config (its links), so its port is chosen before it listens (onAFreePort). */
export function startAppRouter(options: AppRouterOptions = {}): Promise<AppRouter> {
  return options.env?.ROUTER_PORT === undefined ? onAFreePort(() => startAppRouterOnce(options)) : startAppRouterOnce(options);
}

async function startAppRouterOnce(options: AppRouterOptions): Promise<AppRouter> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const serverPatch = options.patch?.server;
  const router = await startTestRouter({
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.build ? { build: options.build } : {}),
    env: { ROUTER_PORT: String(port), ROUTER_BASE_URL: base, ...options.env },
    patch: {
      ...options.patch,
      server: (doc) => {
        delete doc.appUrl;
        delete doc.docsUrl;
        delete doc.supportUrl;
        doc.app = { ...doc.app, ...options.app };
        serverPatch?.(doc);
      },
    },
  });
  return { ...router, appUrl: `${base}/app` };
}

export interface Page {
  status: number;
  headers: Headers;
  html: string;
  location: string | null;
}

export class AppClient {
  readonly cookies = new Map<string, string>();
  /** The last page's form token (the hidden `csrf` field), used by `submit`. */
  csrf: string | undefined;

  constructor(
    readonly base: string,
    readonly userAgent = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0 Safari/537.36',
  ) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<Page> {
    return this.#send(path, 'GET', { accept: 'text/html', ...headers });
  }

  /** POST a form as this site's own page would (same Origin, with the last page's token unless given). */
  async post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
    const body = new URLSearchParams({ ...(this.csrf !== undefined ? { csrf: this.csrf } : {}), ...form }).toString();
    const sent = { accept: 'text/html', origin: new URL(this.base).origin, 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded', ...headers };
    return this.#send(path, 'POST', sent, body);
  }

  /** Follow redirects (at most 5) to the page they lead to, with GETs. */
  async follow(page: Page): Promise<Page> {
    let current = page;
    for (let hops = 0; hops < 5 && current.location; hops++) {
      const next = new URL(current.location, this.base);
      current = await this.get(next.pathname + next.search);
    }
    return current;
  }

  /** Sign up, then sign in as the page that answers every sign-up asks (a refused sign-up's page is returned as is). */
  async signUp(email: string, password: string): Promise<Page> {
    await this.get('/app/signup');
    const next = await this.post('/app/signup', { email, password });
    if (next.status !== 200) return next;
    return this.follow(await this.post('/app/signin', { email, password }));
  }

  async signIn(email: string, password: string): Promise<Page> {
    await this.get('/app/signin');
    return this.follow(await this.post('/app/signin', { email, password }));
  }

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async #send(path: string, method: 'GET' | 'POST', sent: Record<string, string>, body?: string): Promise<Page> {
    const headers: Record<string, string> = { 'user-agent': this.userAgent, ...sent };
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader();
    const response = await fetch(new URL(path, this.base), { method, headers, redirect: 'manual', ...(body === undefined ? {} : { body }) });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair!.split('=');
      const expired = attributes.some((attr) => /^\s*max-age=0\s*$/i.test(attr) || (/^\s*expires=/i.test(attr) && Date.parse(attr.split('=')[1]!) < Date.now()));
      if (expired || value.join('=') === '') this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value.join('='));
    }
    const html = await response.text();
    const token = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
    if (token) this.csrf = token;
    return { status: response.status, headers: response.headers, html, location: response.headers.get('location') };
  }
}

/** The full key shown once on a page (null when none is shown). */
export function shownKey(html: string): string | null {
  return /<code id="new-key" class="key">(sk_router_[0-9A-Za-z]+)<\/code>/.exec(html)?.[1] ?? null;
}

/** Ids of keys listed on the keys page, newest first. */
export function listedKeyIds(html: string): string[] {
  return [...html.matchAll(/<li class="card key-item [a-z]+" id="(key_[0-9a-f]+)">/g)].map((match) => match[1]!);
}

/** The id of the listed key whose masked form ends in `last4`. */
export function keyIdByLast4(html: string, last4: string): string {
  for (const card of html.split('<li class="card key-item ').slice(1)) {
    const id = /^[a-z]+" id="(key_[0-9a-f]+)">/.exec(card)?.[1];
    if (id && card.includes(`<code>sk_router_…${last4}</code>`)) return id;
  }
  throw new Error(`no listed key ends in ${last4}`);
}
