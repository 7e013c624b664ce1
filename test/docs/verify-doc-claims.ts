/**
 * Checks the claims of doc-claims.ts against what exists: CLI commands and options against the real
 * commander program (through `describeCommand`), ROUTER_* names against the names the project reads,
 * and endpoints against a running router (through `statusOf`). Nothing here lists commands, variables
 * or paths: they come from the docs and from the program, so a command, flag, variable or endpoint
 * added elsewhere is checked as soon as a page names it.
 */
import type { CliClaim, DocClaims, EndpointClaim } from './doc-claims.js';

export interface CommandHelp {
  subcommands: string[];
  /** Long and short option names (`--config`, `-h`), each with whether it takes a value. */
  options: Map<string, { takesValue: boolean }>;
}

export interface ProgramInspector {
  /** The help of `router <path…>`, or undefined when no such command exists. */
  describeCommand(path: readonly string[]): Promise<CommandHelp | undefined>;
}

export interface RunningRouter {
  /** The HTTP status the router answers `method path` with. */
  statusOf(method: string, path: string): Promise<number>;
  /** Example values for `{name}` segments of documented paths (e.g. family → a real catalog family). */
  pathExamples: Readonly<Record<string, string>>;
}

export interface DocProblem {
  file: string;
  line: number;
  message: string;
}

export async function verifyDocClaims(
  pages: readonly DocClaims[],
  checks: { program: ProgramInspector; envReads: ReadonlySet<string>; router: RunningRouter },
): Promise<DocProblem[]> {
  const clientEnv = new Set(pages.flatMap((page) => [...page.clientEnv]));
  // Every claim is checked at once (the CLI's help is read once per command); problems keep page order.
  const perPage = pages.map(async (page) => {
    const at = (line: number) => (message: string | undefined) => (message === undefined ? [] : [{ file: page.file, line, message }]);
    const found = await Promise.all([
      ...page.cli.map((claim) => cliProblem(claim, checks.program).then(at(claim.line))),
      ...page.env.map(({ line, name }) => at(line)(checks.envReads.has(name) || clientEnv.has(name) ? undefined : `${name} is not read anywhere in the project`)),
      ...page.endpoints.map((claim) => endpointProblem(claim, checks.router).then(at(claim.line))),
    ]);
    return found.flat().sort((a, b) => a.line - b.line);
  });
  return (await Promise.all(perPage)).flat();
}

/** Resolves the command path word by word, then checks every option against that command's help. */
async function cliProblem(claim: CliClaim, program: ProgramInspector): Promise<string | undefined> {
  let path: string[] = [];
  if (claim.continues) {
    const parent = await resolvedPath(claim.continues, program);
    if (parent === undefined) return undefined; // The invocation it continues is reported already.
    path = parent.slice(0, -1);
  }
  let help = await program.describeCommand(path);
  if (!help) return `${commandName(path)} does not exist`;
  let settled = false;
  const words = claim.words.map(stripGrouping).filter((word) => word !== '' && word !== '|');
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i]!;
    if (word.startsWith('-')) {
      const name = word.split('=')[0]!;
      const option = help.options.get(name);
      if (!option) return `${commandName(path)} has no option ${name}`;
      if (option.takesValue && !word.includes('=')) i += 1;
      continue;
    }
    if (settled || help.subcommands.length === 0 || isPlaceholder(word)) {
      settled = true;
      continue;
    }
    if (!help.subcommands.includes(word)) return `${commandName([...path, word])} is not a command (${commandName(path)} has: ${help.subcommands.join(', ')})`;
    path = [...path, word];
    help = await program.describeCommand(path);
    if (!help) return `${commandName(path)} does not exist`;
  }
  return undefined;
}

async function resolvedPath(claim: CliClaim, program: ProgramInspector): Promise<string[] | undefined> {
  const path: string[] = [];
  let help = await program.describeCommand(path);
  for (const word of claim.words.map(stripGrouping)) {
    if (!help || word.startsWith('-') || !help.subcommands.includes(word)) break;
    path.push(word);
    help = await program.describeCommand(path);
  }
  return path.length > 0 ? path : undefined;
}

function commandName(path: readonly string[]): string {
  return ['router', ...path].join(' ');
}

/** `[--name` → `--name`, `(--key` → `--key`, `N]` → `N`: usage brackets are not part of a word. */
function stripGrouping(word: string): string {
  return word.replace(/^[[(]+/, '').replace(/[\])]+$/, '');
}

/** `…`, `<command>`, `ID`: words that stand for something rather than name a command. */
function isPlaceholder(word: string): boolean {
  return /^(…|\.\.\.|<.*>)$/.test(word) || /^[A-Z][A-Z0-9_]*$/.test(word);
}

async function endpointProblem(claim: EndpointClaim, router: RunningRouter): Promise<string | undefined> {
  let missing: string | undefined;
  // The query of a documented call holds example values (`?id=req_…`): whether the endpoint exists is a question of its path.
  const path = claim.path.split('?')[0]!.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const example = router.pathExamples[name];
    if (example === undefined) missing ??= name;
    return encodeURIComponent(example ?? '');
  });
  if (missing !== undefined) return `${claim.path}: no example value for {${missing}} to try it with`;
  const method = claim.method ?? 'GET';
  const status = await router.statusOf(method, path);
  return status === 404 ? `${method} ${claim.path} answers 404: no such endpoint` : undefined;
}

export function formatDocProblem(problem: DocProblem): string {
  return `${problem.file}:${problem.line} ${problem.message}`;
}
