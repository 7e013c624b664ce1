// Writes schemas/<file>.schema.json from the TypeBox definitions in src/config/schemas/ (run through
// `npm run schemas`, which builds first). The JSON files are for operators' editors, `router check`'s
// docs and links; test/unit/config/schema-files.test.ts fails when one differs from its definition.
import { writeFileSync } from 'node:fs';
import { CONFIG_FILE_SCHEMAS, renderSchemaFile } from '../dist/config/schemas/index.js';

for (const [name, schema] of Object.entries(CONFIG_FILE_SCHEMAS)) {
  const file = new URL(`../schemas/${name}.schema.json`, import.meta.url);
  writeFileSync(file, renderSchemaFile(schema));
  console.log(`wrote schemas/${name}.schema.json`);
}
