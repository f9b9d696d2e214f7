/** The harness folder's names, kept with every other name in `workspace/layout.ts`; re-exported for the harness modules. */
export { HARNESS_SPEC_FILE, LOCK_FILE, MANIFEST_FILE, RECORDS_DIR } from '../workspace/layout';
