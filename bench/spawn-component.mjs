/**
 * Starts one component of the benchmark as its own Node process (so /proc gives its CPU and RSS alone)
 * and waits for the first line it prints on stdout, a JSON document saying where it listens. stderr
 * goes to a log file, shown when the component fails to start.
 */
import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const READY_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 3_000;

/**
 * @param {{ name: string, args: string[], env?: NodeJS.ProcessEnv, cwd?: string, logPath: string, nodeFlags?: string[] }} options
 * @returns {Promise<{ name: string, pid: number, ready: any, stop(): Promise<void> }>}
 */
export async function spawnComponent({ name, args, env, cwd, logPath, nodeFlags = [] }) {
  const logFd = openSync(logPath, 'a');
  const child = spawn(process.execPath, [...nodeFlags, ...args], { cwd, env: env ?? process.env, stdio: ['pipe', 'pipe', logFd] });
  closeSync(logFd);
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => resolve({ code: null, signal: error.message }));
  });

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };

  const lines = createInterface({ input: child.stdout });
  let timer;
  try {
    const ready = await Promise.race([
      new Promise((resolve, reject) => {
        lines.once('line', (line) => {
          try {
            resolve(JSON.parse(line));
          } catch {
            reject(new Error(`${name} printed an unexpected first line`));
          }
        });
      }),
      exited.then(({ code, signal }) => {
        throw new Error(`${name} exited before it was ready (code ${code}, signal ${signal})`);
      }),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${name} was not ready within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
      }),
    ]);
    lines.close();
    // Keep draining stdout so the child can never block on a full pipe.
    child.stdout.resume();
    return { name, pid: child.pid, ready, stop };
  } catch (error) {
    lines.close();
    await stop();
    const log = readFileSync(logPath, 'utf8').trim().split('\n').slice(-15).join('\n');
    throw new Error(`${error.message}${log ? `\n--- ${name} stderr (last lines) ---\n${log}` : ''}`);
  } finally {
    clearTimeout(timer);
  }
}
