/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and tells where the time went inside a time window:
 * self time per function, self time per module, inclusive time per module (the share of samples with
 * that module anywhere on the stack: "how much of the work happens under fetch"), inclusive time per
 * function of the router's own dist/ (what each stage costs with everything it calls), and time per group:
 * each sample goes to the first group with a module on its stack, so groups add up to 100%.
 * Idle time is left out, so shares are of the time the process was busy. Stacks end at the last
 * `await`: work resumed from a promise is on a stack of its own, so it counts under the modules on that
 * stack, not under the router function that awaited it.
 */

const PSEUDO = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);

/** A short name for where a frame's code lives: an npm package, a node: internal area, a router folder, or native code (V8 builtins, C++ bindings, generated code such as ajv validators). */
function moduleOf({ url, functionName }) {
  if (url === '') return PSEUDO.has(functionName) ? functionName : `native: ${functionName || '(anonymous)'}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `npm:${pkg[1]}`;
  if (url === 'node:internal/deps/undici/undici') return "node:undici (Node's fetch)";
  if (/^node:(_http_|http$)/.test(url)) return 'node:http';
  const internal = /^node:internal\/([^/]+)/.exec(url);
  if (internal) return `node:internal/${internal[1]}`;
  if (url.startsWith('node:')) return url;
  const dist = /\/dist\/([^/]+)\//.exec(url);
  if (dist) return `router dist/${dist[1]}`;
  return url.replace(/^file:\/\//, '');
}

/**
 * @param {{ nodes: any[], samples: number[], timeDeltas: number[], startTime: number }} profile
 * @param {{ fromUs?: number, toUs?: number, top?: number, groups?: Array<{ name: string, modules: RegExp }> }} options
 *   fromUs/toUs: the window, in monotonic microseconds as process.hrtime gives them
 */
export function summarizeCpuProfile(profile, { fromUs = -Infinity, toUs = Infinity, top = 25, groups = [] } = {}) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const selfByFunction = new Map();
  const selfByModule = new Map();
  const inclusiveByModule = new Map();
  const inclusiveByRouterFunction = new Map();
  const byGroup = new Map();
  const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
  let busyUs = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i];
    const weight = profile.timeDeltas[i + 1] ?? 0;
    if (at < fromUs || at > toUs) continue;
    const node = byId.get(profile.samples[i]);
    const frame = node.callFrame;
    if (frame.functionName === '(idle)') continue;
    busyUs += weight;
    const module = moduleOf(frame);
    add(selfByModule, module, weight);
    add(selfByFunction, `${frame.functionName || '(anonymous)'} ${module}${frame.url ? ` ${shortFile(frame.url)}:${frame.lineNumber + 1}` : ''}`, weight);
    const seen = new Set();
    const routerFunctions = new Set();
    for (let id = node.id; id !== undefined; id = parent.get(id)) {
      const callFrame = byId.get(id).callFrame;
      seen.add(moduleOf(callFrame));
      if (/\/dist\//.test(callFrame.url) && !callFrame.url.includes('node_modules')) routerFunctions.add(`${callFrame.functionName || '(anonymous)'} ${shortFile(callFrame.url)}:${callFrame.lineNumber + 1}`);
    }
    for (const name of seen) if (!PSEUDO.has(name)) add(inclusiveByModule, name, weight);
    for (const name of routerFunctions) add(inclusiveByRouterFunction, name, weight);
    const group = groups.find((g) => [...seen].some((name) => g.modules.test(name)));
    add(byGroup, group?.name ?? 'other', weight);
  }
  const rank = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: busyUs > 0 ? us / busyUs : 0 }));
  return {
    busyMs: busyUs / 1000,
    byGroup: rank(byGroup),
    selfByFunction: rank(selfByFunction),
    selfByModule: rank(selfByModule),
    inclusiveByModule: rank(inclusiveByModule),
    inclusiveByRouterFunction: rank(inclusiveByRouterFunction),
  };
}

function shortFile(url) {
  const pkg = /node_modules\/(.*)$/.exec(url);
  if (pkg) return pkg[1];
  const dist = /\/(dist\/.*)$/.exec(url);
  return dist ? dist[1] : url.replace(/^file:\/\//, '');
}
