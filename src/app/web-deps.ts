/** Everything the web pages need: the services the composition root built, and the app's own request helpers, made once by createWebHandler. */
import type { AppServices } from './app-services.js';
import type { CsrfGuard } from './csrf.js';
import type { DeviceCookies } from './device-cookie.js';
import type { KeyFlash } from './key-flash.js';
import type { KeptForms } from './kept-form.js';
import type { ZonePreference } from './time-zone.js';
import type { Renderer } from './render.js';
import type { WebPaths } from './web-paths.js';

export interface WebDeps extends AppServices {
  paths: WebPaths;
  renderer: Renderer;
  csrf: CsrfGuard;
  /** The browser's signed device cookie: which accounts it signed in to (the sign-in throttle's exemption, new-device notes). */
  devices: DeviceCookies;
  /** The new key (and notice) a POST hands to the page it redirects to. */
  flash: KeyFlash;
  /** The input of a form posted on an ended session, kept through sign-in. */
  keptForms: KeptForms;
  /** The time zone a person's pages show times in. */
  zones: ZonePreference;
}
