/**
 * Validation of CI files against the published schemas vendored in test/fixtures/ci/ (see its
 * README.md for where each came from): `sarif-schema-2.1.0.json` from oasis-tcs/sarif-spec, and
 * `junit.xsd`, the Apache Ant JUnit schema from windyroad/JUnit-Schema. Shared by the tests of
 * every command that writes them.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { validateXML } from 'xmllint-wasm';
import { localFixturesDir } from './fixturePaths';

const CI_FIXTURES = join(localFixturesDir, 'ci');

/** The XSD's errors for a JUnit text (none when it is valid). */
export async function junitErrors(xml: string): Promise<string[]> {
  const xsd = await readFile(join(CI_FIXTURES, 'junit.xsd'), 'utf8');
  const r = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [{ fileName: 'junit.xsd', contents: xsd }] });
  return r.errors.map((e) => e.rawMessage);
}

let sarifValidator: ReturnType<Ajv['compile']> | undefined;
/** The SARIF schema's errors for a log (none when it is valid). */
export async function sarifErrors(log: unknown): Promise<string[]> {
  if (!sarifValidator) {
    // The published schema has a pattern (`^[a-zA-Z]{2}|…]?$`) that is invalid under the `u` flag ajv uses by default.
    const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
    addFormats(ajv);
    sarifValidator = ajv.compile(JSON.parse(await readFile(join(CI_FIXTURES, 'sarif-schema-2.1.0.json'), 'utf8')) as object);
  }
  return sarifValidator(log) ? [] : (sarifValidator.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

/** Test cases of a JUnit text: name, and the failure's message and body when it failed. */
export function junitCases(xml: string): { name: string; failure?: { message: string; body: string } }[] {
  const decode = (s: string) =>
    s
      .replace(/&#10;/g, '\n')
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  return [
    ...xml.matchAll(/<testcase name="([^"]*)"[^>]*?(?:\/>|>\s*(?:<failure message="([^"]*)"[^>]*>([\s\S]*?)<\/failure>|<skipped[^>]*\/>)\s*<\/testcase>)/g),
  ].map((m) => ({
    name: decode(m[1] ?? ''),
    ...(m[2] !== undefined ? { failure: { message: decode(m[2]), body: decode(m[3] ?? '') } } : {}),
  }));
}

/** The environment of a run outside GitHub Actions (the test process's may be inside it). */
export const noActions = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  delete env.GITHUB_ACTIONS;
  return env;
};
