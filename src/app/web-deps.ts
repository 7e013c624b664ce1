/** Everything the web pages need, built once by createWebHandler. */
import type { H3Event } from 'h3';
import type { KeyLimitService } from '../accounts/key-limit-service.js';
import type { AppBilling } from './billing/open-billing.js';
import type { RouterDeps } from '../http/router-deps.js';
import type { CsrfGuard } from './csrf.js';
import type { KeyFlash } from './key-flash.js';
import type { KeptForms } from './kept-form.js';
import type { ZonePreference } from './time-zone.js';
import type { Renderer } from './render.js';
import type { SessionManager } from './session-manager.js';
import type { SigninThrottle } from './signin-throttle.js';
import type { LedgerViews } from './ledger-seams.js';
import type { StatusHistory } from './status-history.js';
import type { WebPaths } from './web-paths.js';

export interface WebDeps extends RouterDeps {
  paths: WebPaths;
  renderer: Renderer;
  sessions: SessionManager;
  csrf: CsrfGuard;
  /** The new key (and notice) a POST hands to the page it redirects to. */
  flash: KeyFlash;
  /** The input of a form posted on an ended session, kept through sign-in. */
  keptForms: KeptForms;
  /** The time zone a person's pages show times in. */
  zones: ZonePreference;
  throttle: SigninThrottle;
  /** The client's address through the trusted proxies (server.trustedProxies). */
  clientAddress: (event: H3Event) => string | null;
  keyLimits: KeyLimitService;
  statusHistory: StatusHistory;
  ledger: LedgerViews;
  /** Null with billing off (billing.provider none). */
  billing: AppBilling | null;
}
