/**
 * Finds the spec a harness was generated from. Judge, report and export all need it, so it lives
 * with the harness format rather than in any one of them.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { FileReadError, readBoundedFile } from '../boundedRead';
import { readFileInside } from '../containment';
import type { Spec } from '../spec/model';
import { loadSpecText } from '../spec/snapshot';
import type { HarnessManifest } from './format';
import { specHashOnce } from './hash';
import { HARNESS_SPEC_FILE } from './layout';

/** Where a harness's spec was found. */
export type SpecLookup =
  | { ok: true; spec: Spec; file: string; warnings: string[] }
  /** `notFound`: no candidate existed (a front end may say how to name the spec). */
  | { ok: false; error: string; notFound?: boolean };

/**
 * Finds the spec a harness was generated from: `specFile` when given; otherwise a `spec.json`
 * inside the harness folder, then the manifest's `spec.source` (absolute, or relative to `cwd`,
 * the harness folder or its parent). A spec whose hash differs from the manifest's is used with
 * a warning (records generated from tools that changed since are stale).
 */
export async function findHarnessSpec(
  dir: string,
  manifest: HarnessManifest | undefined,
  options: { specFile?: string; cwd?: string } = {},
): Promise<SpecLookup> {
  const cwd = options.cwd ?? process.cwd();
  const candidates: string[] = [];
  if (options.specFile) candidates.push(isAbsolute(options.specFile) ? options.specFile : resolve(cwd, options.specFile));
  else {
    candidates.push(join(dir, HARNESS_SPEC_FILE));
    const source = manifest?.spec.source;
    // `config#server` sources name a live server, not a file.
    if (source && !/#[^/\\]*$/.test(source)) {
      if (isAbsolute(source)) candidates.push(source);
      else candidates.push(resolve(cwd, source), resolve(dir, source), resolve(dir, '..', source));
    }
  }
  const tried: string[] = [];
  const ownCopy = resolve(dir, HARNESS_SPEC_FILE);
  for (const file of [...new Set(candidates)]) {
    let text: string;
    try {
      // The harness's own copy is a file of the harness: never read through a link (containment.ts
      // throws ContainmentError, which is not caught here). A file the user or manifest names is theirs.
      text = resolve(file) === ownCopy ? await readFileInside(dir, file) : await readBoundedFile(file);
    } catch (e) {
      if (!(e instanceof FileReadError)) throw e;
      // A candidate that is absent is passed over; one that exists but must not be read (a FIFO,
      // a folder, a huge file) is an error, not a reason to quietly use another file.
      if (e instanceof FileReadError && e.reason === 'missing') {
        tried.push(file);
        continue;
      }
      return { ok: false, error: `${file}: ${e instanceof FileReadError ? e.message : String(e)}` };
    }
    const loaded = loadSpecText(text, file);
    if (!loaded.ok) return { ok: false, error: `${file}: ${loaded.problem.message}` };
    const warnings: string[] = [];
    // Memoised on the spec object: the judge hashes the same spec into every judgment (hash.ts).
    if (manifest && specHashOnce(loaded.spec) !== manifest.spec.hash) {
      warnings.push(
        `the spec in ${file} differs from the one the harness was generated from (hash ${manifest.spec.hash.slice(0, 12)}…); records whose tools changed are stale`,
      );
    }
    return { ok: true, spec: loaded.spec, file, warnings };
  }
  if (options.specFile) return { ok: false, error: `cannot read the spec file ${candidates[0]}` };
  const source = manifest?.spec.source;
  return {
    ok: false,
    error: `cannot find the spec of this harness${source ? ` (the manifest names ${JSON.stringify(source)}; tried ${tried.join(', ')})` : ' (the manifest names no spec file)'}`,
    notFound: true,
  };
}
