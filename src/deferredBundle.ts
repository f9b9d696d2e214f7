/**
 * The entry of `dist/deferred.js`, the one bundle of the heavy code (the commands, the LLM clients,
 * the MCP SDK, the generator, ajv, faker) that both the CLI and the extension's deferred part load,
 * so the `.vsix` ships those libraries once. Each part is `require`d on first use: esbuild then wraps
 * its modules in lazy initialisers, so the CLI never evaluates the extension's modules (which
 * require `vscode`, absent outside the extension host) and the extension never runs the CLI's.
 */

/** The extension's commands (src/extension/deferred.ts), for src/extension/onDemand.ts. */
export function extensionPart(): typeof import('./extension/deferred') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose, see the module comment
  return require('./extension/deferred') as typeof import('./extension/deferred');
}

/** The command line (src/cli/main.ts), for the launcher src/cli/launch.ts and esbuild.mjs. */
export function cli(): typeof import('./cli/main') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose, see the module comment
  return require('./cli/main') as typeof import('./cli/main');
}
