/**
 * While a streaming fusion request waits for its panel and judge (nothing of theirs may reach the
 * client), an SSE comment every `intervalMs` keeps proxies and clients from timing out. The stream
 * opens at the first comment, so a run that answers sooner still gets its status and routing headers
 * (X-Router-Upstream) as usual; one that needed keep-alives names its writer in the `router` object only.
 */
import { isRouterError, type RouterError } from '../../core/errors.js';
import type { RouterRequestContext } from '../request-context.js';
import type { SseWriter } from '../sse-writer.js';

/**
 * Runs `work` behind keep-alives. When it fails after a keep-alive opened the stream, the failure can
 * only go in-band: `reportInBand` writes it in the format's shape, the stream ends, and the error is
 * re-thrown for the pipeline's accounting (which sends nothing more once headers are out).
 */
export async function behindKeepAlive<T>(
  writer: SseWriter,
  intervalMs: number,
  ctx: RouterRequestContext,
  work: () => Promise<T>,
  reportInBand: (error: RouterError) => Promise<void>,
): Promise<{ value: T; opened: boolean }> {
  let opened = false;
  const timer = setInterval(() => {
    if (!opened) writer.open({});
    opened = true;
    void writer.comment('keep-alive');
  }, intervalMs);
  try {
    return { value: await work(), opened };
  } catch (error) {
    clearInterval(timer);
    if (opened && isRouterError(error)) {
      ctx.errorCode = error.code;
      await reportInBand(error);
    }
    if (opened) writer.end();
    throw error;
  } finally {
    clearInterval(timer);
  }
}
