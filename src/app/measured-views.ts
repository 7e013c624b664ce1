/**
 * What the /status and /model-catalog pages show of measured routing (routing/route-measurements.ts) and
 * of the concrete models (catalog.yaml `concreteModels`): the live figures per provider and model, read as
 * labels for people, and each concrete model with the providers that serve it, their prices and the
 * figures measured for that endpoint. The JSON at /status carries the same figures unrounded for labels.
 */
import type { ConcreteModel, RouterConfig } from '../config/types.js';
import type { MeasuredFigures, RouteMeasurements } from '../routing/route-measurements.js';
import { utcLabel } from './key-views.js';

export interface MeasuredRow {
  provider: string;
  model: string;
  ttfb: string;
  throughput: string;
  errorRate: string;
  samples: number;
  updatedIso: string;
  updated: string;
}

export function measuredRows(measurements: RouteMeasurements, config: RouterConfig): MeasuredRow[] {
  const names = providerNames(config);
  return measurements.snapshot().map((figures) => ({ ...figureLabels(figures), provider: names.get(figures.provider) ?? figures.provider, model: figures.model }));
}

export interface ConcreteModelView {
  id: string;
  anchor: string;
  name: string;
  description: string;
  contextLength: string;
  /** Where the model is served: chat APIs, /v1/embeddings or /v1/rerank. */
  servedAt: string;
  /** An embedding model's vectors ("1,536 (shorter on request)"); absent for other models. */
  dimensions?: string;
  endpoints: Array<{ provider: string; model: string; region: string; input: string; output: string; ttfb: string; throughput: string; errorRate: string }>;
}

const SERVED_AT: Readonly<Record<ConcreteModel['kind'], string>> = {
  chat: 'Chat completions, Responses, Messages',
  embedding: 'POST /v1/embeddings',
  rerank: 'POST /v1/rerank',
};

export function concreteModelViews(config: RouterConfig, measurements: RouteMeasurements): ConcreteModelView[] {
  const providers = new Map(config.providers.providers.map((provider) => [provider.id, provider]));
  return config.catalog.concreteModels.map((model: ConcreteModel) => ({
    id: model.id,
    anchor: `cm-${model.id.replace(/[^a-z0-9-]+/gi, '-')}`,
    name: model.name,
    description: model.description,
    contextLength: `${model.contextLength.toLocaleString('en-US')} tokens`,
    servedAt: SERVED_AT[model.kind],
    ...(model.embedding ? { dimensions: `${model.embedding.dimensions.toLocaleString('en-US')}${model.embedding.shortenable ? ' (shorter on request: dimensions)' : ''}` } : {}),
    endpoints: model.endpoints.map((endpoint) => {
      const provider = providers.get(endpoint.provider);
      const price = provider?.prices[endpoint.model];
      const figures = measurements.figures(endpoint.provider, endpoint.model);
      const labels = figures ? figureLabels(figures) : { ttfb: 'not measured yet', throughput: '—', errorRate: '—' };
      return {
        provider: provider?.name ?? endpoint.provider,
        model: endpoint.model,
        region: provider?.policy?.region ?? '—',
        input: price ? `$${price.input} / M` : 'unpriced',
        output: price ? `$${price.output} / M` : 'unpriced',
        ttfb: labels.ttfb,
        throughput: labels.throughput,
        errorRate: labels.errorRate,
      };
    }),
  }));
}

function figureLabels(figures: MeasuredFigures): Omit<MeasuredRow, 'provider' | 'model'> {
  const updatedIso = new Date(figures.updatedAt).toISOString();
  return {
    ttfb: figures.ttfbMs === null ? '—' : `${Math.round(figures.ttfbMs)} ms`,
    throughput: figures.tokensPerSecond === null ? '—' : `${Math.round(figures.tokensPerSecond * 10) / 10} tokens/s`,
    errorRate: `${Math.round(figures.errorRate * 1000) / 10}%`,
    samples: figures.samples,
    updatedIso,
    updated: utcLabel(updatedIso),
  };
}

function providerNames(config: RouterConfig): Map<string, string> {
  return new Map(config.providers.providers.map((provider) => [provider.id, provider.name]));
}
