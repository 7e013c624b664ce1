/**
 * The process's tracing, built by open-tracing.ts when `tracing` is on and injected (RouterDeps,
 * RoutingEngineDeps); absent when off, so the request path pays one `undefined` check and nothing else.
 *
 * A request's spans form one tree: the server span (continuing the client's `traceparent` and
 * `tracestate`), its admission stages, one span per fusion call and one client span per upstream
 * attempt, whose context goes upstream as `traceparent`. The active span travels with the request's
 * async work in an AsyncLocalStorage (entered only here), so the shared pipeline, the failover loop and
 * the upstream client find their parent without any route passing it along: a new route gets its
 * spans from the pipeline it runs in.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingHttpHeaders } from 'node:http';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Attributes, type Context, type Span, type TextMapGetter, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { TokenUsage } from '../core/token-usage.js';
import { GEN_AI_RESPONSE_FINISH_REASONS, GEN_AI_RESPONSE_MODEL, usageAttributes } from './span-attributes.js';

export { SpanKind, SpanStatusCode, type Attributes, type Span };

/** A span and the context that makes it the parent of what runs inside it. */
export interface SpanScope {
  span: Span;
  context: Context;
}

/** What the request's async work can reach: its own scope, and the request it belongs to. */
interface Frame {
  context: Context;
  request: RequestTrace;
}

/**
 * One request's tracing: its server span, and the upstream attempts that served (their spans stay open
 * while the answer streams and are ended with its usage by whoever knows it, at the latest when the
 * request ends).
 */
export class RequestTrace {
  /** Served attempts still open, with what is known of their answer so far. */
  readonly #served = new Map<Span, ServedAnswer>();
  readonly #tracer: Tracer;
  /** The admission span open now (stages run one at a time), and its name. */
  #stage: Span | undefined;
  #stageName: string | undefined;

  constructor(readonly server: SpanScope, tracer: Tracer) {
    this.#tracer = tracer;
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
   * server span made without entering the async context: nothing inside a stage starts a span.
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

  /** Ends a served attempt once, with its answer (what `describeServed` noted fills what `answer` lacks). */
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
  readonly #shutdown: () => Promise<void>;
  readonly #frames = new AsyncLocalStorage<Frame>();
  readonly #propagator = new W3CTraceContextPropagator();

  constructor(tracer: Tracer, shutdown: () => Promise<void>) {
    this.#tracer = tracer;
    this.#shutdown = shutdown;
  }

  /** The server span of a request, a child of the client's `traceparent` when it sent a valid one. */
  startRequest(headers: IncomingHttpHeaders, name: string, attributes: Attributes): RequestTrace {
    const parent = this.#propagator.extract(ROOT_CONTEXT, headers, headerGetter);
    const span = this.#tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
    return new RequestTrace({ span, context: trace.setSpan(parent, span) }, this.#tracer);
  }

  /** Runs `work` as the request's: spans started inside, across awaits, are children of its server span. */
  runRequest<T>(request: RequestTrace, work: () => T): T {
    return this.#frames.run({ context: request.server.context, request }, work);
  }

  /** A child of the active span (a root when called outside any request). */
  startSpan(name: string, kind: SpanKind, attributes?: Attributes): SpanScope {
    const parent = this.#frames.getStore()?.context ?? ROOT_CONTEXT;
    const span = this.#tracer.startSpan(name, { kind, ...(attributes ? { attributes } : {}) }, parent);
    return { span, context: trace.setSpan(parent, span) };
  }

  /** Runs `work` with `scope` as the active span. */
  within<T>(scope: SpanScope, work: () => T): T {
    const request = this.#frames.getStore()?.request;
    if (!request) return work();
    return this.#frames.run({ context: scope.context, request }, work);
  }

  /**
   * `work` in a child span of the active one, ended when it settles; a rejection marks the span as an
   * error (its name, no message). A leaf: the span is not made active, as nothing inside starts one.
   */
  async inSpan<T>(name: string, work: () => Promise<T> | T, attributes?: Attributes): Promise<T> {
    const scope = this.startSpan(name, SpanKind.INTERNAL, attributes);
    try {
      return await work();
    } catch (error) {
      markError(scope.span, error);
      throw error;
    } finally {
      scope.span.end();
    }
  }

  /** The active span, if any. */
  activeSpan(): Span | undefined {
    const frame = this.#frames.getStore();
    return frame ? trace.getSpan(frame.context) : undefined;
  }

  /** The request the active work belongs to. */
  activeRequest(): RequestTrace | undefined {
    return this.#frames.getStore()?.request;
  }

  /** Adds the active span's `traceparent` (and the client's `tracestate`) to an outgoing request's headers. */
  inject(headers: Record<string, string>): void {
    const frame = this.#frames.getStore();
    if (frame) this.#propagator.inject(frame.context, headers, { set: (carrier, key, value) => void (carrier[key] = value) });
  }

  /** Sends what is queued (bounded by the exporter's timeout) and stops. */
  shutdown(): Promise<void> {
    return this.#shutdown();
  }
}

/** An error status named by the error's code or class: error messages may quote client or upstream text. */
export function markError(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  const type = typeof code === 'string' ? code : error instanceof Error ? error.name : 'error';
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('error.type', type);
}
