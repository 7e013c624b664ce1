/** Runs before every test file, in its process (vitest.config.ts `setupFiles`). */
import { cheapPasswordHashes } from './cheap-password-hashing.js';

cheapPasswordHashes();
