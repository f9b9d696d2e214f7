/**
 * The entry of `dist/cli.js`: a few kilobytes that answer `--help`, `help <command>` and
 * `--version` from texts baked in at build time (esbuild.mjs takes them from `helpTexts()` of the
 * real command table, so they cannot drift), and otherwise load `dist/deferred.js`, the bundle the
 * CLI shares with the extension's deferred part, and run the command there. Compiling that
 * multi-megabyte bundle is most of a short command's time, and help needs none of it.
 */
import { EXIT } from './exitCodes';

declare const __AGENT_SEER_HELP__: { top: string; version: string; usage: Record<string, string> };
interface SharedBundle {
  cli(): { main(): void };
}

const [name, ...rest] = process.argv.slice(2);
if (!name || name === '--help' || name === '-h' || (name === 'help' && rest[0] === undefined)) {
  // The same answers as run() in main.ts: help on stdout; no command at all is bad input.
  process.stdout.write(`${__AGENT_SEER_HELP__.top}\n`);
  process.exitCode = name ? EXIT.ok : EXIT.badInput;
} else if (name === 'help' && rest[0] !== undefined && Object.hasOwn(__AGENT_SEER_HELP__.usage, rest[0])) {
  process.stdout.write(`${__AGENT_SEER_HELP__.usage[rest[0]]}\n`);
  process.exitCode = EXIT.ok;
} else if (name === '--version') {
  process.stdout.write(`${__AGENT_SEER_HELP__.version}\n`);
  process.exitCode = EXIT.ok;
} else {
  // Real work, and `help <typo>`, which main.ts answers with the nearest command.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the shared bundle beside this one in dist/, loaded only for real work
  (require('./deferred.js') as SharedBundle).cli().main();
}
