// Writes the published JSON Schemas under schemas/ (harness record and manifest, report, agent trajectory, price table, diff) from the
// zod schemas. Run after compiling the tests (it loads the compiled core from out/):
//   npm run compile-tests && node scripts/gen-schemas.mjs
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { harnessJsonSchemas, HARNESS_SCHEMA_FILES } = require(join(root, 'out', 'src', 'core', 'harness', 'jsonSchema.js'));

const schemas = harnessJsonSchemas();
mkdirSync(join(root, 'schemas'), { recursive: true });
for (const [key, file] of Object.entries(HARNESS_SCHEMA_FILES)) {
  writeFileSync(join(root, 'schemas', file), `${JSON.stringify(schemas[key], null, 2)}\n`);
  console.log(`wrote schemas/${file}`);
}

const report = require(join(root, 'out', 'src', 'core', 'report', 'schema.js'));
writeFileSync(join(root, 'schemas', report.REPORT_SCHEMA_FILE), `${JSON.stringify(report.reportJsonSchema(), null, 2)}\n`);
console.log(`wrote schemas/${report.REPORT_SCHEMA_FILE}`);

const trajectory = require(join(root, 'out', 'src', 'core', 'agents', 'trajectory.js'));
writeFileSync(join(root, 'schemas', trajectory.TRAJECTORY_SCHEMA_FILE), `${JSON.stringify(trajectory.trajectoryJsonSchema(), null, 2)}\n`);
console.log(`wrote schemas/${trajectory.TRAJECTORY_SCHEMA_FILE}`);

const pricing = require(join(root, 'out', 'src', 'core', 'llm', 'pricing.js'));
writeFileSync(join(root, 'schemas', pricing.PRICE_TABLE_SCHEMA_FILE), `${JSON.stringify(pricing.priceTableJsonSchema(), null, 2)}\n`);
console.log(`wrote schemas/${pricing.PRICE_TABLE_SCHEMA_FILE}`);

const diff = require(join(root, 'out', 'src', 'core', 'report', 'diff.js'));
writeFileSync(join(root, 'schemas', diff.DIFF_SCHEMA_FILE), `${JSON.stringify(diff.diffJsonSchema(), null, 2)}\n`);
console.log(`wrote schemas/${diff.DIFF_SCHEMA_FILE}`);
