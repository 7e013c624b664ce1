/**
 * One response as the probe read it. A file of its own because both the HTTP side (probe-http.ts, which
 * makes it) and the verdicts (probe-session.ts's ProbeFailure, which carries it) name it.
 */
export interface ProbeResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined. */
  json: any;
  /** `METHOD URL (key)` for reports. */
  request: string;
}
