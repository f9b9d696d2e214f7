/**
 * The MCP registry's `server.json`: `packages[]` become stdio definitions the way clients install
 * them (npm → `npx -y id@version`, pypi → `uvx id==version`, oci → `docker run -i --rm … image`,
 * nuget → `dnx id@version --yes`), with runtime and package arguments (named/positional) and
 * environment variables; `remotes[]` become HTTP/SSE definitions with headers given as a list.
 * Registry placeholders (`{token}` declared in `variables`) become `${input:token}` plus an input,
 * so an unanswered secret is reported at resolution instead of reaching the server literally.
 * Both the 2025-07 snake_case and the later camelCase field names are read.
 */
import type { Node } from 'jsonc-parser';
import { childByKey, nodeValue } from '../jsonText';
import type { SourceRange } from '../model';
import { ParseContext, buildDefinition, parseJsonRoot, transportOf, type ServerFields } from './common';
import type { ConfigFormat, ConfigParseResult, InputDefinition, ServerDefinition } from './types';
import { isRecord } from '../../util/isRecord';

/** This adapter's format. */
export const format: ConfigFormat = 'mcp-registry';

/** `server.json` in any folder (monorepos keep one per server package). */
export function matchesPath(path: string): boolean {
  return path === 'server.json' || path.endsWith('/server.json');
}

type Raw = Record<string, unknown>;

/** A field under its camelCase name or the 2025-07 snake_case one. */
function field(raw: Raw, camel: string): unknown {
  if (raw[camel] !== undefined) return raw[camel];
  return raw[camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const DEFAULT_RUNTIME: Record<string, string> = { npm: 'npx', pypi: 'uvx', oci: 'docker', docker: 'docker', nuget: 'dnx' };

/** Turns registry `{name}` placeholders into `${input:name}` and declares each as an input. */
class Placeholders {
  constructor(private readonly ctx: ParseContext) {}

  fill(value: string, variables: unknown): string {
    if (!isRecord(variables)) return value;
    let out = value;
    for (const [id, spec] of Object.entries(variables)) {
      if (!out.includes(`{${id}}`)) continue;
      out = out.split(`{${id}}`).join(`\${input:${id}}`);
      this.declare(id, isRecord(spec) ? spec : {});
    }
    return out;
  }

  /** An input for a value the user must supply; returns its reference. */
  ask(id: string, spec: Raw): string {
    this.declare(id, spec);
    return `\${input:${id}}`;
  }

  private declare(id: string, spec: Raw): void {
    if (this.ctx.inputs.some((i) => i.id === id)) return;
    const input: InputDefinition = { id, type: Array.isArray(spec.choices) ? 'pickString' : 'promptString' };
    const description = str(spec.description);
    if (description !== undefined) input.description = description;
    input.password = field(spec, 'isSecret') === true;
    this.ctx.inputs.push(input);
  }
}

/** One runtime or package argument as command-line words (none when optional and unset). */
function argumentWords(arg: Raw, index: number, holes: Placeholders): string[] {
  const required = field(arg, 'isRequired') === true;
  const value = str(arg.value) ?? (arg.value !== undefined && arg.value !== null ? String(arg.value) : undefined);
  const fallback = arg.default !== undefined && arg.default !== null ? String(arg.default) : undefined;
  if (arg.type === 'named') {
    const name = str(arg.name);
    if (!name) return [];
    const given = value ?? fallback;
    if (given === undefined) return required ? [name, holes.ask(name.replace(/^-+/, ''), arg)] : [];
    // A boolean named argument is a flag: present when true, absent when false.
    if (arg.format === 'boolean') return given === 'true' ? [name] : [];
    return [name, holes.fill(given, arg.variables)];
  }
  const given = value ?? fallback;
  if (given !== undefined) return [holes.fill(given, arg.variables)];
  if (!required) return [];
  return [holes.ask(str(field(arg, 'valueHint')) ?? `argument${index + 1}`, arg)];
}

function argumentList(raw: unknown, holes: Placeholders): string[][] {
  if (!Array.isArray(raw)) return [];
  return raw.map((arg, i) => (isRecord(arg) ? argumentWords(arg, i, holes) : []));
}

/** An OCI reference already carrying a tag or digest in its last segment. */
function hasTag(image: string): boolean {
  const last = image.slice(image.lastIndexOf('/') + 1);
  return last.includes(':') || last.includes('@');
}

function packageFields(ctx: ParseContext, pkg: Raw, label: string, holes: Placeholders): ServerFields | undefined {
  const registryType = str(field(pkg, 'registryType')) ?? str(pkg.registry_name);
  const identifier = str(pkg.identifier) ?? str(pkg.name);
  if (!registryType || !identifier) {
    ctx.problem(`${label}: a package needs "registryType" and "identifier"; skipped`);
    return undefined;
  }
  const command = str(field(pkg, 'runtimeHint')) ?? DEFAULT_RUNTIME[registryType];
  if (!command) {
    ctx.problem(`${label}: registry type "${registryType}" cannot be started from a command line; skipped`);
    return undefined;
  }
  const version = str(pkg.version);
  const runtime = argumentList(field(pkg, 'runtimeArguments'), holes);
  const packageArgs = argumentList(field(pkg, 'packageArguments'), holes).flat();

  const env: Record<string, string> = {};
  const envVars = field(pkg, 'environmentVariables');
  for (const item of Array.isArray(envVars) ? envVars : []) {
    if (!isRecord(item) || typeof item.name !== 'string') continue;
    const value = str(item.value) ?? (item.default !== undefined && item.default !== null ? String(item.default) : undefined);
    if (value !== undefined) env[item.name] = holes.fill(value, item.variables);
    else if (field(item, 'isRequired') === true) env[item.name] = holes.ask(item.name, item);
  }

  const args: string[] = [];
  if (registryType === 'npm') {
    if (command === 'npx' && !runtime.flat().some((a) => a === '-y' || a === '--yes')) args.push('-y');
    args.push(...runtime.flat(), version ? `${identifier}@${version}` : identifier, ...packageArgs);
  } else if (registryType === 'pypi') {
    args.push(...runtime.flat(), version ? `${identifier}==${version}` : identifier, ...packageArgs);
  } else if (registryType === 'nuget') {
    args.push(...runtime.flat(), version ? `${identifier}@${version}` : identifier, '--yes');
    if (packageArgs.length) args.push('--', ...packageArgs);
  } else {
    // OCI. Runtime arguments that start with `run` are the whole docker invocation; otherwise
    // the client's default `run -i --rm` comes first. Some files also name the image as a runtime
    // positional: that word becomes the full reference instead of the image appearing twice.
    const image = version && !hasTag(identifier) ? `${identifier}:${version}` : identifier;
    const bare = hasTag(identifier) ? identifier.replace(/[:@][^/]*$/, '') : identifier;
    const words = runtime.map((w) => (w.length === 1 && (w[0] === identifier || w[0] === bare) ? [image] : w));
    const imageAt = runtime.findIndex((w) => w.length === 1 && (w[0] === identifier || w[0] === bare));
    if (runtime.flat()[0] !== 'run') args.push('run', '-i', '--rm');
    const envFlags = Object.keys(env).flatMap((name) => ['-e', name]); // docker passes env only when asked
    if (imageAt >= 0) {
      args.push(...words.slice(0, imageAt).flat(), ...envFlags, ...words.slice(imageAt).flat());
    } else {
      args.push(...words.flat(), ...envFlags, image);
    }
    args.push(...packageArgs);
  }

  const transport = isRecord(pkg.transport) ? pkg.transport : {};
  const type = str(transport.type) ?? str(pkg.transport_type);
  const fields: ServerFields = { command, args, env };
  if (type !== undefined) fields.type = type;
  const url = str(transport.url);
  if (url !== undefined && type !== undefined && transportOf(type) !== 'stdio') {
    fields.url = holes.fill(url, transport.variables);
    fields.headers = headerMap(transport.headers, holes);
  }
  return fields;
}

function headerMap(list: unknown, holes: Placeholders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const h of Array.isArray(list) ? list : []) {
    if (!isRecord(h) || typeof h.name !== 'string') continue;
    const value = str(h.value);
    // Optional headers without a value are left out: the server's own default applies.
    if (value !== undefined) headers[h.name] = holes.fill(value, h.variables);
    else if (field(h, 'isRequired') === true) headers[h.name] = holes.ask(h.name, h);
  }
  return headers;
}

function remoteFields(remote: Raw, holes: Placeholders): ServerFields {
  const fields: ServerFields = { type: remote.type ?? remote.transport_type };
  if (typeof remote.url === 'string') fields.url = holes.fill(remote.url, remote.variables);
  fields.headers = headerMap(remote.headers, holes);
  return fields;
}

function rangeOf(n: Node | undefined): SourceRange | undefined {
  return n ? { offset: n.offset, length: n.length } : undefined;
}

/**
 * Parses a registry `server.json`. `server.json` is a common name, so a file without `packages`,
 * `remotes` or the registry `$schema` is `isConfig: false` without a problem.
 */
export function parse(text: string, file: string): ConfigParseResult {
  const ctx = new ParseContext(text, file, format);
  const root = parseJsonRoot(ctx);
  if (!root) {
    // A non-object server.json is someone else's file; only a syntax error is worth saying.
    if (!ctx.problems.some((p) => p.message.startsWith('invalid JSON') || p.message.startsWith('binary'))) ctx.problems.length = 0;
    return ctx.result(false);
  }
  const doc = nodeValue(root) as Raw;
  const packagesNode = childByKey(root, 'packages');
  const remotesNode = childByKey(root, 'remotes');
  const schema = str(doc.$schema) ?? '';
  if (packagesNode?.type !== 'array' && remotesNode?.type !== 'array' && !schema.includes('server.schema.json')) return ctx.result(false);

  const base = str(doc.name) ?? str(doc.title) ?? 'server';
  const holes = new Placeholders(ctx);
  const drafts: { kind: string; fields: ServerFields | undefined; at: SourceRange | undefined }[] = [];
  (packagesNode?.children ?? []).forEach((node, i) => {
    const pkg = nodeValue(node);
    if (!isRecord(pkg)) return ctx.problem(`package ${i + 1}: expected an object`, node.offset);
    const kind = str(field(pkg, 'registryType')) ?? 'package';
    const at = rangeOf(childByKey(node, 'identifier') ?? node);
    drafts.push({ kind, fields: packageFields(ctx, pkg, `package ${i + 1} (${kind})`, holes), at });
  });
  (remotesNode?.children ?? []).forEach((node, i) => {
    const remote = nodeValue(node);
    if (!isRecord(remote)) return ctx.problem(`remote ${i + 1}: expected an object`, node.offset);
    const at = rangeOf(childByKey(node, 'url') ?? node);
    drafts.push({ kind: str(remote.type) ?? 'remote', fields: remoteFields(remote, holes), at });
  });

  const used = new Set<string>();
  const definitions: ServerDefinition[] = [];
  for (const draft of drafts) {
    if (!draft.fields) continue;
    // One definition keeps the registry name; several are told apart by kind (and number if needed).
    let name = drafts.length === 1 ? base : `${base} (${draft.kind})`;
    for (let n = 2; used.has(name); n++) name = `${base} (${draft.kind} ${n})`;
    used.add(name);
    const def = buildDefinition(ctx, draft.at ? { name, location: draft.at } : { name }, draft.fields);
    if (def) definitions.push(def);
  }
  return ctx.result(true, definitions);
}
