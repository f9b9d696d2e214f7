/**
 * The published JSON Schemas of the harness files, generated from the zod schemas so the two
 * can never disagree. `scripts/gen-schemas.mjs` writes them to `schemas/`; a unit test fails
 * when the checked-in files differ from what this produces. Draft-07 because it is what VS
 * Code's `jsonValidation` and most validators handle best.
 */
import { z } from 'zod';
import { HarnessManifest, HarnessRecord } from './format';

/** File names under `schemas/`, keyed by what they describe. */
export const HARNESS_SCHEMA_FILES = {
  record: 'harness-record.schema.json',
  manifest: 'harness-manifest.schema.json',
} as const;

/** The JSON Schemas of a harness record and of a run manifest. */
export function harnessJsonSchemas(): { record: Record<string, unknown>; manifest: Record<string, unknown> } {
  const gen = (schema: z.ZodType, title: string): Record<string, unknown> => ({
    ...(z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' }) as Record<string, unknown>),
    title,
  });
  return {
    record: gen(HarnessRecord, 'Agent Seer harness record (formatVersion 1)'),
    manifest: gen(HarnessManifest, 'Agent Seer harness manifest (formatVersion 1)'),
  };
}
