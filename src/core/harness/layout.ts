/** The harness folder's layout; no imports, so any layer may read it. */

/** The records folder inside a harness folder. */
export const RECORDS_DIR = 'records';
/** The run manifest inside a harness folder. */
export const MANIFEST_FILE = 'manifest.json';
/** A copy of the spec the harness was generated from, so it can be judged wherever it is moved. */
export const HARNESS_SPEC_FILE = 'spec.json';
/** The lock file of a harness folder while a run writes it (see lock.ts). */
export const LOCK_FILE = '.agent-seer.lock';
