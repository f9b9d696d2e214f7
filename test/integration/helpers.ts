/** Small helpers for integration tests (they run inside the VS Code extension host). */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { loadSpecText } from '../../src/core/spec/snapshot';
import { createResponder, type Responder } from '../unit/pipelineResponder';

/** The extension's id: `publisher.name` from package.json. */
export const EXTENSION_ID = 'agent-seer.agent-seer';

/** The first workspace folder's path (every suite opens one fixture folder). */
export function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder is open');
  return folder.uri.fsPath;
}

/** Wait until `check()` returns a truthy value, or throw after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Ask the driver (scripts/test-integration.mjs) for a screenshot of the workbench now, while
 * the extension host is alive (after the suite it is gone, and so is the extension's UI).
 * Resolves with the PNG's path, or undefined where no driver takes screenshots (e.g. under
 * @vscode/test-electron, or when the driver does not answer within `timeoutMs`).
 */
export async function screenshot(name: string, timeoutMs = 15_000): Promise<string | undefined> {
  const dir = process.env.AGENT_SEER_TEST_SCREENSHOTS;
  if (!dir) return undefined;
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-');
  const png = join(dir, `${safe}.png`);
  mkdirSync(dir, { recursive: true });
  rmSync(png, { force: true });
  // Let the workbench render what the test just did before the picture is taken.
  await new Promise((r) => setTimeout(r, 500));
  writeFileSync(join(dir, `${safe}.request`), '');
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(png)) {
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, 100));
  }
  return png;
}

/**
 * Ask the driver (scripts/test-integration.mjs) to click what `selector` (a Playwright selector)
 * finds in the workbench, as a person would. Resolves with the time of the click (ms since the
 * epoch, the driver's clock: the same machine), or an error message when nothing clickable was
 * found; undefined where no driver clicks (e.g. under @vscode/test-electron).
 */
export async function clickInWorkbench(name: string, selector: string, timeoutMs = 15_000): Promise<{ at: number } | { error: string } | undefined> {
  const dir = process.env.AGENT_SEER_TEST_SCREENSHOTS;
  if (!dir) return undefined;
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-');
  const clicked = join(dir, `${safe}.clicked`);
  const failed = join(dir, `${safe}.click-failed`);
  mkdirSync(dir, { recursive: true });
  rmSync(clicked, { force: true });
  rmSync(failed, { force: true });
  writeFileSync(join(dir, `${safe}.click`), selector);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(clicked)) return { at: Number(readFileSync(clicked, 'utf8')) };
    if (existsSync(failed)) return { error: readFileSync(failed, 'utf8') };
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Generates the offline harness of the basic workspace's spec (`evals/secure-filesystem-server`),
 * so a test that needs a harness does not depend on another test having made one first.
 */
export async function generateOfflineHarness(): Promise<{ status: string; outputDir: string }> {
  const spec = vscode.Uri.file(join(workspaceRoot(), 'specs', 'filesystem.json'));
  const result = await vscode.commands.executeCommand<{ status: string; outputDir: string }>('agentSeer.generateEvals', spec, {
    provider: { kind: 'offline' },
  });
  if (result?.status !== 'complete') throw new Error(`offline generation did not complete: ${JSON.stringify(result).slice(0, 300)}`);
  return result;
}

/**
 * A spec of the test workspace and the unit tests' cooperative model for it, to answer a fake
 * provider's requests in a generation run.
 */
export function fakeModelFor(specName: string): { specFile: string; responder: Responder } {
  const specFile = join(workspaceRoot(), 'specs', specName);
  const load = loadSpecText(readFileSync(specFile, 'utf8'), specFile);
  if (!load.ok) throw new Error(`${specFile}: ${load.problem.message}`);
  return { specFile, responder: createResponder({ spec: load.spec }) };
}
