/**
 * Variable references in server definitions, in every syntax the clients use:
 * VS Code / Cursor `${workspaceFolder}`, `${env:NAME}`, `${input:id}`; Claude Code and Gemini
 * `${VAR}` and `${VAR:-default}`; opencode-style `{env:VAR}`; Continue's `${{ secrets.X }}`.
 * Finding them is exact (counts are per occurrence); resolving them never drops what it cannot
 * resolve: it leaves the text as written and reports it.
 */
import { basename, resolve, sep } from 'node:path';
import type { ServerDefinition, VariableRef } from './types';

// One pass finds every syntax: `${{ … }}` before `${…}` so the template form is not split, and
// `${env:X}` is consumed by the `${…}` branch before `{env:X}` could match inside it.
const VARIABLE_PATTERN = /\$\{\{\s*([^{}]*?)\s*\}\}|\$\{([^{}]*)\}|\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const WITH_DEFAULT = /^([A-Za-z_][A-Za-z0-9_]*):-(.*)$/s;

/** VS Code's predefined variables other than the workspace folder: not environment variables. */
const PREDEFINED = new Set([
  'userHome',
  'workspaceFolderBasename',
  'pathSeparator',
  'cwd',
  'execPath',
  'defaultBuildTask',
  'file',
  'fileWorkspaceFolder',
  'relativeFile',
  'relativeFileDirname',
  'fileBasename',
  'fileBasenameNoExtension',
  'fileExtname',
  'fileDirname',
  'fileDirnameBasename',
  'lineNumber',
  'columnNumber',
  'selectedText',
]);

function classify(raw: string, template: string | undefined, inner: string | undefined, opencodeEnv: string | undefined): VariableRef {
  if (template !== undefined) return { kind: 'other', name: template, raw };
  if (opencodeEnv !== undefined) return { kind: 'env', name: opencodeEnv, raw };
  const body = inner ?? '';
  if (body === 'workspaceFolder' || body === 'workspaceRoot') return { kind: 'workspaceFolder', name: '', raw };
  const colon = body.indexOf(':');
  if (colon > 0 && body[colon + 1] !== '-') {
    const prefix = body.slice(0, colon);
    const rest = body.slice(colon + 1);
    if (prefix === 'workspaceFolder') return { kind: 'workspaceFolder', name: rest, raw };
    if (prefix === 'env') return { kind: 'env', name: rest, raw };
    if (prefix === 'input') return { kind: 'input', name: rest, raw };
    return { kind: 'other', name: body, raw }; // config:, command:, …
  }
  const withDefault = WITH_DEFAULT.exec(body);
  if (withDefault) return { kind: 'env', name: withDefault[1] ?? '', raw, defaultValue: withDefault[2] ?? '' };
  if (NAME.test(body) && !PREDEFINED.has(body)) return { kind: 'env', name: body, raw };
  return { kind: 'other', name: body, raw };
}

/** Every variable reference in a string, in order, one entry per occurrence. */
export function findVariables(s: string): VariableRef[] {
  const out: VariableRef[] = [];
  for (const [raw, template, inner, opencodeEnv] of s.matchAll(VARIABLE_PATTERN)) out.push(classify(raw, template, inner, opencodeEnv));
  return out;
}

/** The strings of a definition that may hold variables, in a fixed order (command, args, env, cwd, url, headers). */
function definitionStrings(def: Pick<ServerDefinition, 'command' | 'args' | 'env' | 'cwd' | 'url' | 'headers'>): string[] {
  const out: string[] = [];
  if (def.command !== undefined) out.push(def.command);
  out.push(...def.args, ...Object.values(def.env));
  if (def.cwd !== undefined) out.push(def.cwd);
  if (def.url !== undefined) out.push(def.url);
  out.push(...Object.values(def.headers));
  return out;
}

/** Every variable occurrence in command, args, env values, cwd, url and header values. */
export function definitionVariables(def: Pick<ServerDefinition, 'command' | 'args' | 'env' | 'cwd' | 'url' | 'headers'>): VariableRef[] {
  return definitionStrings(def).flatMap(findVariables);
}

/** What resolution may use. Anything it does not provide stays as written and is reported. */
export interface ResolveContext {
  /** Absolute path of the workspace folder the definition belongs to. */
  workspaceFolder: string;
  /** Environment to read `${env:X}`, `${X}`, `${X:-d}` and `{env:X}` from (usually `process.env`). */
  env: Record<string, string | undefined>;
  /** Values for `${input:id}`, by id (answers to prompts, secrets). */
  inputs?: Record<string, string>;
  /** Home folder for `${userHome}`; left unresolved when absent. */
  userHome?: string;
}

/** A definition with its variables substituted, plus what could not be. */
export interface ResolveResult {
  /** The resolved definition; its `variables` lists only what is left unresolved. */
  definition: ServerDefinition;
  /** Variables left as written, once per distinct text (e.g. an input nobody answered). */
  unresolved: VariableRef[];
}

function valueOf(ref: VariableRef, ctx: ResolveContext): string | undefined {
  switch (ref.kind) {
    case 'workspaceFolder':
      // `${workspaceFolder:name}` names a folder of a multi-root workspace; only ours resolves.
      return ref.name === '' || ref.name === basename(ctx.workspaceFolder) ? ctx.workspaceFolder : undefined;
    case 'env': {
      const value = ctx.env[ref.name];
      // Shell `:-` semantics: the default applies when the variable is unset or empty.
      if (ref.defaultValue !== undefined && (value === undefined || value === '')) return ref.defaultValue;
      return value;
    }
    case 'input':
      return ctx.inputs?.[ref.name];
    case 'other':
      if (ref.name === 'workspaceFolderBasename') return basename(ctx.workspaceFolder);
      if (ref.name === 'pathSeparator' || ref.name === '/') return sep;
      if (ref.name === 'userHome') return ctx.userHome;
      return undefined;
  }
}

/**
 * Substitutes variables in command, args, env, cwd, url and headers. Unresolvable references
 * (an unset env var without default, an input with no value) stay as written and are listed in
 * `unresolved`. A relative `cwd` is resolved against the workspace folder; a stdio server without
 * one runs in the workspace folder, so relative script paths in `args` (left as written) work.
 */
export function resolveVariables(def: ServerDefinition, ctx: ResolveContext): ResolveResult {
  const unresolved = new Map<string, VariableRef>();
  const secretValues = new Set<string>();
  const sub = (s: string): string =>
    s.replace(VARIABLE_PATTERN, (raw: string, template?: string, inner?: string, opencodeEnv?: string) => {
      const ref = classify(raw, template, inner, opencodeEnv);
      const value = valueOf(ref, ctx);
      if (value === undefined) {
        if (!unresolved.has(ref.raw)) unresolved.set(ref.raw, ref);
        return ref.raw;
      }
      // Environment and input values may be secrets (an inline `:-default` is written in the config, not one).
      if (ref.kind === 'input' || (ref.kind === 'env' && value !== ref.defaultValue)) secretValues.add(value);
      return value;
    });
  const mapValues = (r: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, sub(v)]));

  // Substituted in the same order `definitionVariables` lists them, so `unresolved` follows it too.
  const resolved: ServerDefinition = { ...def, variables: [] };
  if (def.command !== undefined) resolved.command = sub(def.command);
  resolved.args = def.args.map(sub);
  resolved.env = mapValues(def.env);
  if (def.cwd !== undefined) {
    const cwd = sub(def.cwd);
    // A cwd that still holds an unresolved variable is not a path yet: leave it alone. Otherwise
    // resolve() both anchors a relative cwd and normalises `${workspaceFolder}/../x`.
    resolved.cwd = findVariables(cwd).length > 0 ? cwd : resolve(ctx.workspaceFolder, cwd);
  } else if (def.transport === 'stdio') {
    resolved.cwd = ctx.workspaceFolder;
  }
  if (def.url !== undefined) resolved.url = sub(def.url);
  resolved.headers = mapValues(def.headers);
  resolved.variables = definitionVariables(resolved);
  resolved.secretValues = [...(def.secretValues ?? []), ...secretValues];
  return { definition: resolved, unresolved: [...unresolved.values()] };
}
