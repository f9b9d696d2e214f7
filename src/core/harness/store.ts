/**
 * The harness on disk:
 * ```
 * <out>/manifest.json
 * <out>/spec.json          (a copy of the spec, written by the runner)
 * <out>/records/<id>.json
 * ```
 * Files are written atomically (a temp file in the same folder, then rename), so a crash or a
 * concurrent reader never sees half a record, and as stable pretty JSON (2 spaces, trailing
 * newline, keys in schema order after validation) so diffs stay readable and offline runs are
 * byte-identical. Reading validates every file and reports bad ones as problems instead of
 * throwing: one corrupt record must not hide the other hundred. Every file and folder below the
 * harness folder is read and written through containment.ts: a link there (`records/` → `../..`,
 * `records/x.json` → a key file) is refused with a `ContainmentError` before anything is read or
 * written, never followed.
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { FileReadError } from '../boundedRead';
import { checkHarnessFolder, ContainmentError, listInside, readFileInside, writeFileInside } from '../containment';
import { looksBinary } from '../spec/jsonText';
import { parseKeepingKeys, safeParseKeepingKeys } from '../util/ownKeys';
import { HarnessManifest, HarnessRecord } from './format';
import { MANIFEST_FILE, RECORDS_DIR } from './layout';

export { HARNESS_SPEC_FILE, MANIFEST_FILE, RECORDS_DIR } from './layout';
export { writeFileAtomic } from '../util/writeFileAtomic';

/** Stable pretty JSON: 2-space indent and a trailing newline. */
export function stableJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * File stem for a record id: only `[A-Za-z0-9._-]`, no leading dot, at most 100 characters, so
 * an id can never leave `records/` (`../x`, `a/b`, `C:\\x`) or hide as a dotfile. When
 * sanitising changed the id, a short hash of the original keeps distinct ids distinct.
 */
export function recordFileStem(id: string): string {
  let stem = id
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.-]+/, '')
    .replace(/\.{2,}/g, '.');
  stem = stem.slice(0, 100).replace(/[.-]+$/, '');
  if (stem === id && stem.length > 0) return stem;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 8);
  return `${stem || 'record'}-${hash}`;
}

/** Validates and writes one record to `<dir>/records/<stem>.json`; returns the file path. Throws on an invalid record (a bug, not data). */
export async function writeRecord(dir: string, record: HarnessRecord): Promise<string> {
  return writeRecordFile(dir, join(dir, RECORDS_DIR, `${recordFileStem(record.id)}.json`), record);
}

/**
 * Validates and writes one record to a given file of the harness in `dir` (the one it was read
 * from, whatever its id says: rewriting an edited record must not leave a second copy under a
 * new name); returns it. Refused (`ContainmentError`) when the file or a folder on the way is a link.
 */
export async function writeRecordFile(dir: string, file: string, record: HarnessRecord): Promise<string> {
  const valid = parseKeepingKeys(HarnessRecord, record);
  await writeFileInside(dir, file, stableJson(valid));
  return file;
}

/** Validates and writes `<dir>/manifest.json`; returns the file path. */
export async function writeManifest(dir: string, manifest: HarnessManifest): Promise<string> {
  const valid = parseKeepingKeys(HarnessManifest, manifest);
  await mkdir(dir, { recursive: true });
  const file = join(dir, MANIFEST_FILE);
  await writeFileInside(dir, file, stableJson(valid));
  return file;
}

/** Writes a whole harness: every record, then the manifest (so a manifest never names missing files). */
export async function writeHarness(dir: string, manifest: HarnessManifest, records: readonly HarnessRecord[]): Promise<void> {
  for (const record of records) await writeRecord(dir, record);
  await writeManifest(dir, manifest);
}

/** A file of a harness folder that could not be used. */
export interface HarnessProblem {
  file: string;
  message: string;
}

/** What `readHarness` found. */
export interface HarnessRead {
  /** The manifest, when present and valid. */
  manifest?: HarnessManifest;
  /** Valid records, sorted by id. */
  records: HarnessRecord[];
  /** The file each valid record was read from, by id. */
  files: Map<string, string>;
  /** Files that were missing, unreadable, not JSON or not valid. */
  problems: HarnessProblem[];
}

/**
 * The file a record of a read harness is stored in: the file it was read from (an id edited by
 * hand no longer names its file), else where {@link writeRecord} would put it.
 */
export function recordFile(harness: { dir: string; files: ReadonlyMap<string, string> }, record: { id: string }): string {
  return harness.files.get(record.id) ?? join(harness.dir, RECORDS_DIR, `${recordFileStem(record.id)}.json`);
}

/** The first three issues of a zod error on one line (`path: message; …`). */
export function describeIssues(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? `${i.path.map(String).join('.')}: ` : ''}${i.message}`)
    .join('; ');
}

/** A message on one line of printable text, at most 200 characters. */
function oneLine(message: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this strips
  const flat = message.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

/**
 * Reads a JSON file below the folder `root` (bounded); a missing, unreadable, empty, binary or
 * malformed file becomes one problem instead of a throw. A link (the file, or a folder on the way
 * from `root`) is not a problem but a refusal: `ContainmentError` is thrown and nothing is read.
 */
export async function readJson(root: string, file: string, problems: HarnessProblem[]): Promise<{ ok: true; value: unknown } | { ok: false }> {
  let text: string;
  try {
    text = await readFileInside(root, file);
  } catch (e) {
    if (e instanceof ContainmentError) throw e;
    problems.push({ file, message: e instanceof FileReadError ? e.message : `cannot read (${(e as Error).message})` });
    return { ok: false };
  }
  // Said plainly, and never echoing the content: JSON.parse quotes it, control characters and all.
  if (text.trim() === '') {
    problems.push({ file, message: 'empty file, not JSON' });
    return { ok: false };
  }
  if (looksBinary(text)) {
    problems.push({ file, message: 'binary file, not JSON' });
    return { ok: false };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    problems.push({ file, message: `not JSON (${oneLine((e as Error).message)})` });
    return { ok: false };
  }
}

/**
 * Reads and validates a harness folder. Never throws for bad content; every bad file is one
 * problem. Throws `ContainmentError` when a file or folder of its layout (`records/` or a record
 * file, `runs/`, `.cache/`, the manifest, the spec copy) is a link or holds one.
 */
export async function readHarness(dir: string): Promise<HarnessRead> {
  // A harness with a link anywhere in its layout is refused whole, before one file is read.
  await checkHarnessFolder(dir);
  const problems: HarnessProblem[] = [];
  const out: HarnessRead = { records: [], files: new Map(), problems };

  const manifestFile = join(dir, MANIFEST_FILE);
  const m = await readJson(dir, manifestFile, problems);
  if (m.ok) {
    const parsed = safeParseKeepingKeys(HarnessManifest, m.value);
    if (parsed.success) out.manifest = parsed.data;
    else problems.push({ file: manifestFile, message: `invalid manifest: ${describeIssues(parsed.error)}` });
  }

  const folder = join(dir, RECORDS_DIR);
  let names: string[] = [];
  try {
    // Any link among the records refuses the whole harness, before one record is read.
    const entries = await listInside(dir, folder, { refuseLinks: true });
    if (entries)
      names = entries
        .map((e) => e.name)
        .filter((n) => n.endsWith('.json'))
        .sort();
    else problems.push({ file: folder, message: 'cannot list records: ENOENT' });
  } catch (e) {
    if (e instanceof ContainmentError) throw e;
    problems.push({ file: folder, message: `cannot list records: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` });
  }
  const valid: { file: string; record: HarnessRecord; named: boolean }[] = [];
  for (const name of names) {
    const file = join(folder, name);
    const r = await readJson(dir, file, problems);
    if (!r.ok) continue;
    const parsed = safeParseKeepingKeys(HarnessRecord, r.value);
    if (!parsed.success) {
      problems.push({ file, message: `invalid record: ${describeIssues(parsed.error)}` });
      continue;
    }
    valid.push({ file, record: parsed.data, named: name === `${recordFileStem(parsed.data.id)}.json` });
  }
  // Of two files with one id, the one named after it is the record; the other is the duplicate.
  valid.sort((a, b) => Number(b.named) - Number(a.named));
  const seen = new Map<string, string>();
  for (const { file, record, named } of valid) {
    const previous = seen.get(record.id);
    if (previous) {
      problems.push({ file, message: `duplicate record id ${JSON.stringify(record.id)} (also in ${previous})` });
      continue;
    }
    seen.set(record.id, file);
    out.files.set(record.id, file);
    out.records.push(record);
    // An id edited by hand: still read (and judged in place), but the harness is inconsistent.
    if (!named)
      problems.push({
        file,
        message: `record id ${JSON.stringify(record.id)} does not match the file name (a record with this id belongs in ${recordFileStem(record.id)}.json)`,
      });
  }
  out.records.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  if (out.manifest) {
    for (const id of out.manifest.recordIds) {
      if (!seen.has(id))
        problems.push({ file: join(folder, `${recordFileStem(id)}.json`), message: `record ${JSON.stringify(id)} named by the manifest is missing` });
    }
  }
  return out;
}

/** What an agent under test may see of a record: the task, never the oracle or the replay data. */
export interface AgentView {
  id: string;
  /** The single-turn task. */
  prompt: string;
  /** The user prompts of a multi-turn conversation, in order (empty for single-turn records). */
  turns: string[];
  /** Names of the tools offered to the agent (the whole spec's list, so the choice is not given away). */
  tools: string[];
}

/**
 * The agent-facing view of a record. Expected calls, mock outputs, the expected response, the
 * title/category and the provenance (whose tool hashes name the expected tools) are all left out.
 * `toolNames` should be every tool of the spec, e.g. `Object.keys(manifest.spec.toolHashes)`.
 */
export function exportForAgent(record: HarnessRecord, toolNames: readonly string[] = []): AgentView {
  return {
    id: record.id,
    prompt: record.prompt,
    turns: record.conversation.map((t) => t.prompt),
    tools: [...toolNames],
  };
}
