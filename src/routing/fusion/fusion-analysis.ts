/**
 * The judge's structured analysis of the panel's answers, validated against
 * schemas/fusion-analysis.schema.json (compiled once per process). Only the schema's own fields are kept,
 * so whatever else a judge adds never reaches the writer.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

export interface FusionAnalysis {
  consensus: string[];
  contradictions: string[];
  partialCoverage: string[];
  uniqueInsights: string[];
  blindSpots: string[];
  bestAnswer?: number;
}

/** schemas/ sits three levels above both src/routing/fusion/ and dist/routing/fusion/. */
const SCHEMA_URL = new URL('../../../schemas/fusion-analysis.schema.json', import.meta.url);

let validator: ValidateFunction | undefined;

function validate(value: unknown): value is FusionAnalysis {
  validator ??= new Ajv2020({ strict: true }).compile(JSON.parse(readFileSync(SCHEMA_URL, 'utf8')) as object);
  return validator(value);
}

/** The analysis in a judge's reply (a bare JSON object, or one inside a ```json fence), or undefined when it is not valid. */
export function parseAnalysis(text: string | null | undefined): FusionAnalysis | undefined {
  if (!text) return undefined;
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  const body = (fenced?.[1] ?? text).trim();
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body.slice(start, end + 1));
  } catch {
    return undefined;
  }
  if (!validate(value)) return undefined;
  const { consensus, contradictions, partialCoverage, uniqueInsights, blindSpots, bestAnswer } = value;
  return { consensus, contradictions, partialCoverage, uniqueInsights, blindSpots, ...(bestAnswer === undefined ? {} : { bestAnswer }) };
}
