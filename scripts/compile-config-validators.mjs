// Part of `npm run build`: writes dist/config/config-validators.js, the config files' validators as
// standalone ajv code, from the same set-up the in-memory compile uses (src/config/compile-config-validators.ts).
// validate-config-file.ts loads it, so no CLI start pays for TypeBox or ajv's compiler.
import { writeFileSync } from 'node:fs';
import { configValidatorsModule } from '../dist/config/compile-config-validators.js';

writeFileSync(new URL('../dist/config/config-validators.js', import.meta.url), configValidatorsModule());
