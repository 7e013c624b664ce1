/**
 * Templates and static files live beside this module's source (src/app/templates, src/app/static) and
 * are found from the package root, so the compiled dist/ and the TypeScript sources under test read
 * the same files.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the package root of the account app');
    dir = parent;
  }
  return dir;
}

const ROOT = packageRoot();
export const TEMPLATE_DIR = join(ROOT, 'src', 'app', 'templates');
export const STATIC_DIR = join(ROOT, 'src', 'app', 'static');
/** Word lists the app ships (the common passwords a new password must not be). */
export const LISTS_DIR = join(ROOT, 'src', 'app', 'lists');
