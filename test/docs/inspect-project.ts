/**
 * The real things the docs check compares the docs with: the built CLI's command tree, the ROUTER_*
 * names the project's code reads, and the Markdown pages that make claims.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { ProgramInspector } from './verify-doc-claims.js';

export const PROJECT_ROOT = join(import.meta.dirname, '../..');
const BIN_ROUTER = join(PROJECT_ROOT, 'bin/router');

/** README.md and every page under docs/, as paths relative to the project root. */
export function documentationPages(root = PROJECT_ROOT): string[] {
  return ['README.md', ...filesUnder(root, 'docs').filter((file) => file.endsWith('.md'))];
}

/** One command of the program as print-cli-tree.mjs reports it. */
export interface CliTreeNode {
  name: string;
  aliases: string[];
  options: Array<{ flag: string; takesValue: boolean }>;
  commands: CliTreeNode[];
}

/**
 * The built CLI's own command tree, read once: `bin/router` runs with print-cli-tree.mjs preloaded,
 * which makes the commander program print its commands and options instead of running. Needs
 * `npm run build` first (npm test does).
 */
export function builtCliInspector(): ProgramInspector {
  let tree: Promise<CliTreeNode> | undefined;
  return {
    async describeCommand(path) {
      tree ??= readCliTree();
      return inspectorFromTree(await tree).describeCommand(path);
    },
  };
}

async function readCliTree(): Promise<CliTreeNode> {
  const preload = pathToFileURL(join(import.meta.dirname, 'print-cli-tree.mjs')).href;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', preload, BIN_ROUTER], { timeout: 30_000 });
  return JSON.parse(stdout) as CliTreeNode;
}

export function inspectorFromTree(root: CliTreeNode): ProgramInspector {
  return {
    async describeCommand(path) {
      let node: CliTreeNode | undefined = root;
      for (const word of path) node = node?.commands.find((command) => command.name === word || command.aliases.includes(word));
      if (!node) return undefined;
      return {
        subcommands: node.commands.flatMap((command) => [command.name, ...command.aliases]),
        options: new Map(node.options.map(({ flag, takesValue }) => [flag, { takesValue }])),
      };
    },
  };
}

const CODE_EXTENSIONS: ReadonlySet<string> = new Set(['.ts', '.mts', '.js', '.mjs', '.cjs']);
const READ_IN_CODE = [/\benv\??\.(ROUTER_[A-Z0-9_]+)/g, /\benv\[\s*['"](ROUTER_[A-Z0-9_]+)['"]\s*\]/g, /['"](ROUTER_[A-Z0-9_]+)['"]/g];
const READ_IN_SHELL_OR_YAML = [/\$\{(ROUTER_[A-Z0-9_]+)/g, /\$(ROUTER_[A-Z0-9_]+)/g];

/**
 * ROUTER_* names the project reads: in code as `env.NAME`, `env['NAME']` or a string literal that is
 * exactly the name (a table of variables), in shell scripts and YAML as `$NAME` / `${NAME}`. Mentions in
 * comments or messages do not count.
 */
export function projectEnvReads(root = PROJECT_ROOT): Set<string> {
  const names = new Set<string>();
  const folders = ['src', 'bin', '.ci', 'config', 'test', 'bench'];
  for (const file of folders.flatMap((folder) => filesUnder(root, folder))) {
    const extension = extname(file);
    const text = readFileSync(join(root, file), 'utf8');
    const patterns = CODE_EXTENSIONS.has(extension) ? READ_IN_CODE : extension === '.yaml' || extension === '' || extension === '.sh' ? READ_IN_SHELL_OR_YAML : [];
    for (const pattern of patterns) for (const match of text.matchAll(pattern)) names.add(match[1]!);
  }
  return names;
}

function filesUnder(root: string, folder: string): string[] {
  const base = join(root, folder);
  let entries: string[];
  try {
    entries = readdirSync(base);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const full = join(base, entry);
    if (entry === 'node_modules' || entry === 'results') return [];
    return statSync(full).isDirectory() ? filesUnder(root, relative(root, full)) : [relative(root, full)];
  });
}
