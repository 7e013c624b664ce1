/** Per-request state the pipeline stages fill in, kept on `event.context.router`. */
import type { H3Event } from 'h3';
import type { PlanConfig, RouteProfileConfig } from '../config/types.js';
import type { RateDecision } from '../stores/rate-limiter.js';

export interface AuthenticatedCaller {
  keyId: string;
  accountId: string;
}

export interface QuotaState {
  limit: number;
  used: number;
  period: string;
  resetsAt: string;
}

export interface RouterRequestContext {
  requestId: string;
  caller?: AuthenticatedCaller;
  /** The account's plan as read at admission (fresh from the store each request). */
  plan?: PlanConfig;
  quota?: QuotaState;
  rate?: RateDecision;
  /** The parsed JSON body of model traffic. */
  body?: Record<string, unknown>;
  /** The route profile the body's `model` names, when it names a known one. */
  route?: RouteProfileConfig;
  /** The monthly count this request took, to give back when no upstream serves it. */
  admitted?: { weight: number; refund(): Promise<void> };
}

declare module 'h3' {
  interface H3EventContext {
    router?: RouterRequestContext;
  }
}

export function requestContext(event: H3Event): RouterRequestContext {
  const ctx = event.context.router;
  if (!ctx) throw new Error('request-id stage must run first');
  return ctx;
}
