/**
 * What a Markdown page claims exists, read from the page alone: `router …` CLI invocations (in code
 * spans and in shell code blocks), `ROUTER_*` environment variable names, and HTTP endpoint paths
 * (`METHOD /path`, an endpoint table's method and path cells, and any bare `/v1/…` path). Names that
 * the page's own client snippets read (`process.env.X`, Codex's `env_key = "X"`) are collected too:
 * those are the client's variables, not the router's.
 *
 * A line scanner rather than a Markdown parser: every claim is tied to one line, and the only
 * structure needed is fenced blocks (with their language), inline code spans and table cells.
 */

export interface CliClaim {
  line: number;
  /** The words after `router`, e.g. ['keys', 'create', '--account', 'ID', '[--name', 'N]']. */
  words: string[];
  /**
   * For `router a b …` / `c …` written side by side: the continuation `c …` names a sibling of the
   * last command word of the invocation it follows, so it is resolved from that command's parent.
   */
  continues?: CliClaim;
}

export interface EnvClaim {
  line: number;
  name: string;
}

export interface EndpointClaim {
  line: number;
  /** Upper-case method when the page names one. */
  method?: string;
  path: string;
}

export interface DocClaims {
  file: string;
  cli: CliClaim[];
  env: EnvClaim[];
  endpoints: EndpointClaim[];
  /** ROUTER_* names read by the page's client snippets (the client sets them, not the router). */
  clientEnv: Set<string>;
}

const SHELL_FENCES: ReadonlySet<string> = new Set(['sh', 'bash', 'shell', 'zsh', 'console']);
const METHODS = 'GET|POST|PUT|PATCH|DELETE|HEAD';
const ENV_NAME = /\bROUTER_[A-Z0-9_]*[A-Z0-9]\b/g;
const CLIENT_ENV_READS = [/process\.env\.(ROUTER_[A-Z0-9_]+)/g, /\benv_key\s*=\s*"(ROUTER_[A-Z0-9_]+)"/g];
const ROUTER_COMMAND = /^(?:\.{0,2}\/)?(?:bin\/)?router$/;
const CODE_SPAN = /`([^`]+)`/g;

export function extractDocClaims(file: string, markdown: string): DocClaims {
  const claims: DocClaims = { file, cli: [], env: [], endpoints: [], clientEnv: new Set() };
  let fence: string | undefined;
  let pendingShell = '';
  let pendingLine = 0;
  markdown.split('\n').forEach((text, index) => {
    const line = index + 1;
    const fenceMatch = /^\s*(```+|~~~+)\s*([\w-]*)/.exec(text);
    if (fenceMatch) {
      fence = fence === undefined ? (fenceMatch[2] ?? '').toLowerCase() : undefined;
      return;
    }
    for (const match of text.matchAll(ENV_NAME)) claims.env.push({ line, name: match[0] });
    if (fence !== undefined) {
      for (const pattern of CLIENT_ENV_READS) for (const match of text.matchAll(pattern)) claims.clientEnv.add(match[1]!);
      if (!SHELL_FENCES.has(fence)) return;
      // Join `\`-continued lines into one command line, reported at the line where it starts.
      if (pendingShell === '') pendingLine = line;
      pendingShell += text.replace(/\\\s*$/, ' ');
      if (/\\\s*$/.test(text)) return;
      claims.cli.push(...shellInvocations(pendingShell, pendingLine));
      pendingShell = '';
      return;
    }
    claims.cli.push(...spanInvocations(text, line));
    claims.endpoints.push(...endpointsOf(text, line));
  });
  return claims;
}

/** `router …` commands on one shell line: after env assignments, up to a shell operator or redirect. */
function shellInvocations(commandLine: string, line: number): CliClaim[] {
  const withoutComment = commandLine.replace(/(^|\s)#.*$/, '').replace(/^\s*\$\s+/, '');
  const claims: CliClaim[] = [];
  for (const command of withoutComment.split(/&&|\|\||;|\|/)) {
    const words = command.trim().split(/\s+/).filter(Boolean);
    while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words.shift();
    if (words.length === 0 || !ROUTER_COMMAND.test(words[0]!)) continue;
    const redirect = words.findIndex((word) => /^\d*(<<<|<<|<|>>|>)/.test(word));
    claims.push({ line, words: words.slice(1, redirect === -1 ? undefined : redirect) });
  }
  return claims;
}

/** Code spans that start with `router `, and the spans written after one as ` / `-separated siblings. */
function spanInvocations(text: string, line: number): CliClaim[] {
  const claims: CliClaim[] = [];
  let previous: { claim: CliClaim; end: number } | undefined;
  for (const match of text.matchAll(CODE_SPAN)) {
    const words = match[1]!.replace(/\\\|/g, '|').trim().split(/\s+/);
    const start = match.index;
    const end = start + match[0].length;
    if (ROUTER_COMMAND.test(words[0] ?? '') && words.length > 1) {
      const claim: CliClaim = { line, words: words.slice(1) };
      claims.push(claim);
      previous = { claim, end };
    } else if (previous && /^\s*\/\s*$/.test(text.slice(previous.end, start))) {
      const claim: CliClaim = { line, words, continues: previous.claim.continues ?? previous.claim };
      claims.push(claim);
      previous = { claim, end };
    } else {
      previous = undefined;
    }
  }
  return claims;
}

function endpointsOf(text: string, line: number): EndpointClaim[] {
  const found: EndpointClaim[] = [];
  const seen = new Set<string>();
  const add = (path: string, method?: string) => {
    const clean = path.replace(/[.,;:)]+$/, '');
    if (clean.includes('*') || seen.has(clean)) return;
    seen.add(clean);
    found.push(method === undefined ? { line, path: clean } : { line, method, path: clean });
  };
  // A table row of an endpoint list: | GET | `/pricing` | …
  for (const match of text.matchAll(new RegExp(`\\|\\s*(${METHODS})\\s*\\|\\s*\`(/[^\`\\s]*)\``, 'g'))) add(match[2]!, match[1]!);
  // Prose or a code span: GET /v1/models
  for (const match of text.matchAll(new RegExp(`\\b(${METHODS})\\s+(/[^\\s\`|]*)`, 'g'))) add(match[2]!, match[1]!);
  // Any bare /v1/… path that is not part of a URL or a longer path.
  for (const match of text.matchAll(/(?<![\w.:/{}-])\/v1\/[\w\-./{}*]+/g)) add(match[0]);
  return found;
}
