/**
 * The frame every benchmark script runs in: a hard time limit, and clean-up that always runs. What a
 * script starts (a component, a temp directory, a database schema) it registers with `onCleanup`; the
 * registered steps run in reverse order when the body returns or throws, when the time limit passes
 * (exit 2) and on SIGINT or SIGTERM (exit 130), so no process, directory or key outlives the run.
 */
const SIGNALS = ['SIGINT', 'SIGTERM'];

/** @param {string} name how the script names itself in its messages @param {number} timeLimitMs */
export function boundedRun(name, timeLimitMs) {
  const cleanups = [];
  let interrupted = false;
  const cleanUp = async () => {
    while (cleanups.length > 0) {
      // A step may be synchronous (removing a directory) or return a promise (stopping a process).
      try {
        await cleanups.pop()();
      } catch (error) {
        console.error(`${name}: cleanup: ${error.message}`);
      }
    }
  };
  return {
    /** @param {() => unknown} step */
    onCleanup(step) {
      cleanups.push(step);
    },
    /** Runs `body`; a failure is printed and sets exit code 1 (the caller's `await` never throws). */
    async run(body) {
      const watchdog = setTimeout(() => {
        console.error(`${name}: no result within ${timeLimitMs / 1000} s; stopping`);
        void cleanUp().finally(() => process.exit(2));
      }, timeLimitMs);
      const interrupt = () => {
        interrupted = true;
        void cleanUp().finally(() => process.exit(130));
      };
      for (const signal of SIGNALS) process.once(signal, interrupt);
      try {
        await body();
      } catch (error) {
        // Once interrupted, components are being stopped under the running stage: its errors are expected.
        if (!interrupted) console.error(`${name} could not run: ${error.stack ?? error.message}`);
        process.exitCode = 1;
      } finally {
        await cleanUp();
        clearTimeout(watchdog);
        for (const signal of SIGNALS) process.off(signal, interrupt);
      }
    },
  };
}
