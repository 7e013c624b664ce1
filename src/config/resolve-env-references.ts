import { escapePointerSegment, type PointedProblem } from './locate-pointer.js';

/** `${NAME}` or `${NAME:-default}`; anything else between `${` and `}` is reported as malformed. */
const REFERENCE = /\$\{([^}]*)(\}?)/g;
const NAME_AND_DEFAULT = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

export interface ResolvedData {
  data: unknown;
  problems: PointedProblem[];
}

/**
 * Replaces `${NAME}` and `${NAME:-default}` in every string value with values from `env`. As in a
 * shell, the default applies when the variable is unset or empty. Messages name the variable but
 * never a value, since references usually carry credentials.
 */
export function resolveEnvReferences(data: unknown, env: NodeJS.ProcessEnv): ResolvedData {
  const problems: PointedProblem[] = [];
  const resolve = (value: unknown, pointer: string): unknown => {
    if (typeof value === 'string') return resolveString(value, env, (message) => problems.push({ pointer, target: 'value', message }));
    if (Array.isArray(value)) return value.map((item, index) => resolve(item, `${pointer}/${index}`));
    if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value).map(([key, item]) => [key, resolve(item, `${pointer}/${escapePointerSegment(key)}`)]);
      return Object.fromEntries(entries);
    }
    return value;
  };
  return { data: resolve(data, ''), problems };
}

function resolveString(text: string, env: NodeJS.ProcessEnv, report: (message: string) => void): string {
  return text.replace(REFERENCE, (whole, inner: string, closing: string) => {
    const parts = NAME_AND_DEFAULT.exec(inner);
    if (!closing || !parts) {
      report(`malformed environment reference (write \${NAME} or \${NAME:-default})`);
      return whole;
    }
    const [, name = '', fallback] = parts;
    const value = env[name];
    if (fallback !== undefined) return value === undefined || value === '' ? fallback : value;
    if (value === undefined) {
      report(`environment variable ${name} is not set (set it, or give a default: \${${name}:-default})`);
      return whole;
    }
    return value;
  });
}
