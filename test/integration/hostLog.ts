/**
 * The extension host's own logs, read from inside the host: the run folder of
 * scripts/test-integration.mjs holds the user-data dir, whose logs/ has `remoteexthost.log` and
 * the output channel of each extension. Used to prove activation leaves no warning or error of
 * ours behind, and to read how long activation took.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';

/** The logs folder of this run's user-data dir, or undefined outside test-integration.mjs. */
function logsDir(): string | undefined {
  const results = process.env.AGENT_SEER_TEST_RESULTS;
  if (!results) return undefined;
  const dir = join(dirname(results), 'user-data', 'logs');
  return existsSync(dir) ? dir : undefined;
}

/** The newest file under the logs folder whose path ends with `suffix`. */
export function newestLog(suffix: string): string | undefined {
  const dir = logsDir();
  if (!dir) return undefined;
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => f.endsWith(suffix) && statSync(f).isFile());
  return files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

/** A log entry: its first line (time and level) and the lines that continue it (a stack). */
export interface LogEntry {
  time: string;
  level: string;
  text: string;
}

/** The entries of a VS Code log file (`2026-12-02 00:03:42.391 [warning] …` plus continuation lines). */
export function logEntries(file: string): LogEntry[] {
  const entries: LogEntry[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) \[(\w+)\] (.*)$/.exec(line);
    if (m) entries.push({ time: m[1]!, level: m[2]!, text: m[3]! });
    else if (entries.length) entries[entries.length - 1]!.text += `\n${line}`;
  }
  return entries;
}

/**
 * Warnings and errors of the extension host log that come from the extension's bundles (a stack
 * frame in `<extensionPath>/dist/`) or name the extension in their first line. Frames of the tests' own compiled code
 * (out/, loading zod from node_modules) are not the extension's.
 */
export function hostProblemsOf(extensionPath: string, extensionId: string): LogEntry[] {
  const file = newestLog('remoteexthost.log');
  if (!file) throw new Error('no remoteexthost.log in this run (not run by scripts/test-integration.mjs?)');
  const bundles = join(extensionPath, 'dist') + sep;
  // The id counts in an entry's first line only: the host lists every extension's path in the
  // continuation of some warnings about others (e.g. a test file outside any extension).
  return logEntries(file).filter(
    (e) => (e.level === 'warning' || e.level === 'error') && (e.text.includes(bundles) || (e.text.split('\n')[0] ?? '').includes(extensionId)),
  );
}

/** Milliseconds `activate` took, as the extension logged it ("Agent Seer activated in N ms"). */
export function loggedActivationMs(): number | undefined {
  const file = newestLog('Agent Seer.log');
  if (!file) return undefined;
  const m = /Agent Seer activated in (\d+) ms/.exec(readFileSync(file, 'utf8'));
  return m ? Number(m[1]) : undefined;
}

/**
 * From the host starting to activate the extension to "Eager extensions activated", in ms, from
 * the host's own log: an upper bound of loading the bundle and running `activate` when the
 * extension activates at startup (the output channel's timestamps lag, so they are not used).
 */
export function hostActivationMs(extensionId: string): number | undefined {
  const host = newestLog('remoteexthost.log');
  if (!host) return undefined;
  const entries = logEntries(host);
  const at = entries.findIndex((e) => e.text.startsWith(`ExtensionService#_doActivateExtension ${extensionId},`));
  const done = entries.slice(at + 1).find((e) => e.text.startsWith('Eager extensions activated'));
  if (at < 0 || !done) return undefined;
  const ms = (t: string): number => Date.parse(t.replace(' ', 'T'));
  return ms(done.time) - ms(entries[at]!.time);
}
