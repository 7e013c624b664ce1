/**
 * The process's tracing, built by open-tracing.ts when `tracing` is on and injected (RouterDeps,
 * RoutingEngineDeps); absent when off, so the request path pays one `undefined` check and nothing else.
 *
 * A request's spans form one tree: the server span (continuing the client's `traceparent` and
 * `tracestate`), its admission spans, one span per fusion call and one client span per upstream
 * attempt, whose context goes upstream as `traceparent`. The parent of a span is passed explicitly as a
 * SpanScope: the pipeline puts the request's on its context, the failover loop receives it with its call
 * and hands each attempt's to the attempt (its Candidate), fusion passes each call's. No
 * AsyncLocalStorage: on Node 20 it hooks every promise in the process, which cost 14-20 % of the
 * router's CPU per request with tracing on (bench/README.md, Tracing).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Attributes, type Context, type Span, type TextMapGetter, type TextMapPropagator, type TextMapSetter, type Tracer } from '@opentelemetry/api';
import type { TokenUsage } from '../core/token-usage.js';
import { GEN_AI_RESPONSE_FINISH_REASONS, GEN_AI_RESPONSE_MODEL, usageAttributes } from './span-attributes.js';

export { SpanKind, SpanStatusCode, type Attributes, type Span };

/** A span, the context that makes it the parent of spans started under it, and the request it belongs to. */
export interface SpanScope {
  span: Span;
  context: Context;
  request: RequestTrace;
}

const headerSetter: TextMapSetter<Record<string, string>> = { set: (carrier, key, value) => void (carrier[key] = value) };

/**
 * One request's tracing: its server span, its admission spans, and the upstream attempts that served
 * (their spans stay open while the answer streams and are ended with its usage by whoever knows it, at
 * the latest when the request ends).
 */
export class RequestTrace {
  /** Served attempts still open, with what is known of their answer so far. */
  readonly #served = new Map<Span, ServedAnswer>();
  readonly #tracer: Tracer;
  /** Writes a span's context into an upstream request's headers (W3C trace context). */
  readonly propagator: TextMapPropagator;
  /** The admission span open now (stages run one at a time), and its name. */
  #stage: Span | undefined;
  #stageName: string | undefined;

  /** The server span: the parent of the request's admission, fusion and attempt spans. */
  readonly server: SpanScope;

  constructor(span: Span, context: Context, tracer: Tracer, propagator: TextMapPropagator) {
    this.server = { span, context, request: this };
    this.#tracer = tracer;
    this.propagator = propagator;
  }

  /** A child of `parent` (the server span unless given), to be ended by the caller. */
  startSpan(name: string, kind: SpanKind, attributes?: Attributes, parent: SpanScope = this.server): SpanScope {
    const span = this.#tracer.startSpan(name, { kind, ...(attributes ? { attributes } : {}) }, parent.context);
    return { span, context: trace.setSpan(parent.context, span), request: this };
  }

  /** `work` in a child span of the server span, ended when it settles; a rejection marks it as an error (its code, no message). */
  async inSpan<T>(name: string, work: () => Promise<T> | T): Promise<T> {
    const { span } = this.startSpan(name, SpanKind.INTERNAL);
    try {
      return await work();
    } catch (error) {
      markError(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  get traceId(): string {
    return this.server.span.spanContext().traceId;
  }

  /** Whether this trace is recorded and exported (the sampler's decision, or the client's when continued). */
  get sampled(): boolean {
    return (this.server.span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0;
  }

  /**
   * The admission stage about to run belongs to the span `name` (undefined: to none). Consecutive stages
   * of one name share its span; a stage of another name ends it. Admission spans are children of the
   * server span, and leaves: nothing inside a stage starts a span.
   */
  enterStage(name: string | undefined): void {
    if (name === this.#stageName) return;
    this.#stage?.end();
    this.#stageName = name;
    this.#stage = name === undefined ? undefined : this.#tracer.startSpan(name, { kind: SpanKind.INTERNAL }, this.server.context);
  }

  /** Admission is over (passed, or refused by `error`): the open admission span ends. */
  leaveStages(error?: unknown): void {
    if (this.#stage && error !== undefined) markError(this.#stage, error);
    this.enterStage(undefined);
  }

  holdServed(span: Span): void {
    this.#served.set(span, {});
  }

  /** Notes what a served attempt's answer said (its finish reasons, model) without ending its span. */
  describeServed(span: Span, answer: ServedAnswer): void {
    const known = this.#served.get(span);
    if (known) this.#served.set(span, { ...known, ...answer });
  }

  /** Ends a served attempt once, with its answer: what `describeServed` noted, and `given` for what it did not. */
  finishServed(span: Span, given: ServedAnswer = {}): void {
    const known = this.#served.get(span);
    if (!known || !this.#served.delete(span)) return;
    const answer: ServedAnswer = { ...given, ...definedOf(known) };
    span.setAttributes({
      ...usageAttributes(answer.usage),
      ...(answer.model ? { [GEN_AI_RESPONSE_MODEL]: answer.model } : {}),
      ...(answer.finishReasons && answer.finishReasons.length > 0 ? { [GEN_AI_RESPONSE_FINISH_REASONS]: [...answer.finishReasons] } : {}),
    });
    span.end();
  }

  /** The request has ended: served attempts still open end with the request's usage (the main call's). */
  finishAll(answer: ServedAnswer): void {
    for (const span of [...this.#served.keys()]) this.finishServed(span, answer);
  }
}

function definedOf(answer: ServedAnswer): ServedAnswer {
  return {
    ...(answer.usage ? { usage: answer.usage } : {}),
    ...(answer.model ? { model: answer.model } : {}),
    ...(answer.finishReasons && answer.finishReasons.length > 0 ? { finishReasons: answer.finishReasons } : {}),
  };
}

export interface ServedAnswer {
  usage?: TokenUsage | null;
  model?: string;
  finishReasons?: readonly string[];
}

const headerGetter: TextMapGetter<IncomingHttpHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

export class Tracing {
  readonly #tracer: Tracer;
  readonly #propagator: TextMapPropagator;
  readonly #shutdown: () => Promise<void>;

  /**
   * `propagator` reads and writes `traceparent` (W3C trace context): open-tracing.ts makes it, so the
   * OpenTelemetry SDK's packages load only when tracing is on (this module is on every request's path).
   */
  constructor(tracer: Tracer, propagator: TextMapPropagator, shutdown: () => Promise<void>) {
    this.#tracer = tracer;
    this.#propagator = propagator;
    this.#shutdown = shutdown;
  }

  /** The server span of a request, a child of the client's `traceparent` when it sent a valid one. */
  startRequest(headers: IncomingHttpHeaders, name: string, attributes: Attributes): RequestTrace {
    const parent = this.#propagator.extract(ROOT_CONTEXT, headers, headerGetter);
    const span = this.#tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
    return new RequestTrace(span, trace.setSpan(parent, span), this.#tracer, this.#propagator);
  }

  /** Sends what is queued (bounded by the exporter's timeout) and stops. */
  shutdown(): Promise<void> {
    return this.#shutdown();
  }
}

/** Adds `scope`'s `traceparent` (and the client's `tracestate`) to an outgoing request's headers. */
export function injectTraceContext(scope: SpanScope, headers: Record<string, string>): void {
  scope.request.propagator.inject(scope.context, headers, headerSetter);
}

/** An error status named by the error's code or class: error messages may quote client or upstream text. */
export function markError(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  const type = typeof code === 'string' ? code : error instanceof Error ? error.name : 'error';
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('error.type', type);
}
