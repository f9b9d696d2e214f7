import { CLIENT_IDS, FINDING_CODES, formatFixed, type ClientId, type FindingCodeDoc } from '../../core/complexity';
import { DEFAULT_LINT_CLIENTS } from '../../core/workspace/defaults';
import { inspectPaths } from '../../core/inspect';
import { EXIT, outPaint, UsageError, type Io } from '../errors';
import { formatProblem, relativeTo, terminalSafe } from '../format';
import { pathOption } from '../options';
import type { OptionTable, Parsed } from '../command';
import { SNAPSHOT_FOLDER } from '../../core/workspace/layout';
import { shownName } from '../../core/complexity/toolNames';
import { outputWidth, renderTable, tableLook, wrapLine } from '../table';
import { severityTone } from '../colour';
import type { Finding } from '../../core/complexity/analyze';
import { readBoundedFile } from '../../core/boundedRead';
import { FAIL_ON, failOnLine, INSPECT_SARIF_RULES, specCiFindings, type FailOn } from '../../core/ci/inspectCi';
import { sarifLog, sarifText, inGithubActions, type CiFinding } from '../../core/ci/sarif';
import { gateExit, printAnnotations, writeCiFile } from '../ciOutputs';

/** `--clients gemini,openai` → the client ids; `none` → none; anything else is a usage error. */
export function parseClients(raw: string | undefined): ClientId[] {
  if (raw === undefined) return [...DEFAULT_LINT_CLIENTS];
  if (raw.trim() === 'none') return [];
  const names = raw.split(',').map((c) => c.trim());
  const unknown = names.filter((c) => !(CLIENT_IDS as readonly string[]).includes(c));
  if (unknown.length || !names.length) {
    throw new UsageError(`--clients: unknown client ${JSON.stringify(unknown[0] ?? raw)} (use ${CLIENT_IDS.join(', ')}, comma-separated, or none)`);
  }
  return CLIENT_IDS.filter((id) => names.includes(id));
}

/** `--fail-on error|warning` → the level; anything else is a usage error. */
function failOnOption(raw: string | undefined): FailOn | undefined {
  if (raw === undefined) return undefined;
  if (!Object.hasOwn(FAIL_ON, raw)) throw new UsageError(`--fail-on takes error or warning, got "${raw}"`);
  return raw as FailOn;
}

/** `agent-seer inspect <path…> [--clients LIST] [--json] [--sarif FILE] [--fail-on error|warning]` */
export async function inspectCommand(args: { paths: string[]; json: boolean; clients?: string; sarif?: string; failOn?: string }, io: Io): Promise<number> {
  if (!args.paths.length) throw new UsageError('inspect needs at least one path (a spec snapshot, a config file or a folder)');
  const clients = parseClients(args.clients);
  const failOn = failOnOption(args.failOn);
  const result = await inspectPaths(
    args.paths.map((p) => pathOption('input', p, io.cwd)),
    { clients },
  );
  const rel = relativeTo(io.cwd);
  if (args.json) {
    io.out(
      JSON.stringify(
        {
          servers: result.servers.map((s) => ({
            name: s.name,
            source: s.source,
            tools: s.tools,
            meanParams: round(s.meanParams),
            maxParams: s.maxParams,
            optionalRatio: round(s.optionalRatio),
            maxDepth: s.maxDepth,
            findings: s.findings.map((f) => ({
              code: f.code,
              severity: f.severity,
              tool: f.tool ?? null,
              ...(f.param ? { param: f.param } : {}),
              message: f.message,
              ...sourceOf(f.code),
            })),
          })),
          problems: result.problems.map((p) => ({ ...p, message: formatProblem(p) })),
          unsnapshotted: result.unsnapshotted.map(({ name, file }) => ({ name, file })),
        },
        null,
        2,
      ),
    );
  } else {
    if (result.servers.length) {
      const width = outputWidth(io);
      const paint = outPaint(io);
      io.out(
        renderTable(
          ['server', 'tools', 'mean params', 'max params', 'optional %', 'max depth', 'findings', 'source'],
          result.servers.map((s) => [
            s.name,
            s.tools,
            formatFixed(s.meanParams),
            s.maxParams,
            Math.round(s.optionalRatio * 100),
            s.maxDepth,
            s.findings.length,
            rel(s.source),
          ]),
          tableLook(io),
        ),
      );
      const seen = new Set<keyof typeof FINDING_CODES>();
      for (const s of result.servers) {
        if (!s.findings.length) continue;
        io.out('');
        for (const l of wrapLine(`${field(s.name)} (${field(rel(s.source))}):`, width)) io.out(paint.bold(l));
        for (const g of groupFindings(s.findings)) {
          const f = g.first;
          // A tool name may be a megabyte long: the line shows its start and its length.
          const where =
            g.tools.length > 1
              ? `${f.param} in ${g.tools.length} tools: ${toolList(g.tools)}`
              : f.tool
                ? `${shownName(f.tool)}${f.param ? `.${f.param}` : ''}`
                : '(server)';
          // The table says what; why each code matters is printed once, below.
          const why = FINDING_CODES[f.code].explanation;
          const what = f.message.endsWith(why) ? f.message.slice(0, -why.length).trim() : f.message;
          const lines = wrapLine(`  ${f.severity.padEnd(7)} ${f.code.padEnd(24)} ${field(where)}: ${field(what)}`, width, 12);
          // The severity word is coloured after wrapping, so the widths are those of the text.
          const [head = '', ...rest] = lines;
          io.out(`  ${paint.tone(severityTone(f.severity), f.severity)}${head.slice(2 + f.severity.length)}`);
          for (const l of rest) io.out(l);
          seen.add(f.code);
        }
      }
      if (seen.size) {
        io.out(`\n${paint.bold('Why these matter:')}`);
        for (const code of seen) {
          const { source } = sourceOf(code);
          for (const l of wrapLine(`  ${code}: ${FINDING_CODES[code].explanation}${source ? ` (${source})` : ''}`, width)) io.out(l);
        }
      }
    } else {
      io.out('No tool specs found.');
    }
    for (const u of result.unsnapshotted) {
      io.out('');
      const line = `Server "${u.name}" (${rel(u.file)}) has no snapshot yet: agent-seer snapshot ${rel(u.file)} --server ${JSON.stringify(u.name)} --out ${rel(u.snapshotFolder)}`;
      for (const l of wrapLine(line, outputWidth(io))) io.out(l);
    }
  }
  for (const p of result.problems) io.err(`agent-seer: ${formatProblem(p, rel)}`);
  if (args.sarif !== undefined || inGithubActions(io.env)) {
    // Placed in the spec files as the editor places them: each spec is read again for its text.
    const findings: CiFinding[] = [];
    for (const s of result.servers) {
      const text = await readBoundedFile(s.source).catch(() => undefined);
      if (text !== undefined) findings.push(...specCiFindings(text, s.source, clients));
    }
    if (args.sarif !== undefined) {
      const log = sarifLog({ tool: 'agent-seer inspect', rules: INSPECT_SARIF_RULES, findings, baseDir: io.cwd });
      await writeCiFile('--sarif', args.sarif, sarifText(log), io);
    }
    printAnnotations(findings, io, { json: args.json });
  }
  const gate = failOn
    ? failOnLine(
        failOn,
        result.servers.flatMap((s) => s.findings.map((f) => f.severity)),
      )
    : undefined;
  const gateCode = gateExit(io, gate ? [gate] : []);
  return result.problems.length ? EXIT.badInput : gateCode;
}

const round = (n: number) => Number(formatFixed(n));

/** Findings of one kind: the first, and the tools it was found in (one for most). */
interface FindingGroup {
  first: Finding;
  tools: string[];
}

/**
 * The findings of a server with those about a parameter many tools share folded into one: the
 * same code on the same parameter name with the same message (the tool's own name taken out) is
 * said once, with the tools listed. In the order of each group's first finding.
 */
export function groupFindings(findings: readonly Finding[]): FindingGroup[] {
  const groups = new Map<string, FindingGroup>();
  const out: FindingGroup[] = [];
  findings.forEach((f, i) => {
    const key = f.param !== undefined && f.tool ? `${f.code}\u0000${f.param}\u0000${f.message.split(`"${f.tool}"`).join('"\u0000"')}` : `\u0001${i}`;
    const group = groups.get(key);
    if (group) group.tools.push(f.tool);
    else {
      const made = { first: f, tools: [f.tool] };
      groups.set(key, made);
      out.push(made);
    }
  });
  return out;
}

/** `a, b, c and 9 more` (each name as the table shows it). */
function toolList(tools: readonly string[], shown = 3): string {
  const names = tools.slice(0, shown).map((t) => shownName(t));
  if (tools.length <= shown) return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? '');
  return `${names.join(', ')} and ${tools.length - shown} more`;
}

/** The documentation a client-compatibility code cites, as a JSON field (none for the others). */
const sourceOf = (code: keyof typeof FINDING_CODES): { source?: string } => {
  const { source } = FINDING_CODES[code] as FindingCodeDoc;
  return source ? { source } : {};
};

/** A name or message from a spec inside one output line: its newlines must not start new ones. */
const field = (text: string) => terminalSafe(text, { newlines: false });

/** The option table of `agent-seer inspect`. */
export const options = {
  json: { type: 'boolean', default: false },
  clients: { type: 'string' },
  sarif: { type: 'string' },
  'fail-on': { type: 'string' },
} as const satisfies OptionTable;

/** Its lines in the top-level help. */
export const synopsis = `  agent-seer inspect <path…> [--clients LIST] [--json] [--sarif FILE] [--fail-on error|warning]
                                             schema-complexity profile, findings and client
                                             compatibility (path: spec snapshot, config file or folder)`;

/** `agent-seer inspect --help`. */
export const usage = `Usage: agent-seer inspect <path…> [--clients LIST] [--json] [--sarif FILE] [--fail-on error|warning]

Profiles every tool spec found (tools, mean and max parameters, optional %, max depth) and lists
its findings, then what breaks its tools in the clients checked. A path is a spec snapshot, an MCP
config file (the snapshots of its servers, in the workspace's agentSeer.snapshotFolder from
.vscode/settings.json, default ${SNAPSHOT_FOLDER}) or a folder (searched for both).

Options:
  --clients LIST  clients to check, comma-separated: ${CLIENT_IDS.join(', ')}, or none
                  (default ${DEFAULT_LINT_CLIENTS.join(',')}); each finding cites the client's docs
  --json          print one JSON object instead of tables
  --sarif FILE    also write the findings as SARIF 2.1.0 (rules = finding codes; each result at
                  the tool's name or the parameter's key in the spec file, as the editor marks it)
  --fail-on LEVEL exit 6 when a finding is at LEVEL or worse: error, or warning (errors and
                  warnings); one line on stderr says how many
  -h, --help      this text

With GITHUB_ACTIONS=true, each error and warning is also printed as a GitHub annotation
(::error file=…,line=…,col=…::message; on stderr with --json).

A finding about a parameter many tools share (same code, name and message) is printed once with
the tools listed; --json keeps one entry per tool (--sarif, as the editor, one result per
parameter with the other tools as related locations).

Exit 0; 6 when --fail-on found findings at its level; 2 when a path was bad input.`;

/** Runs `inspect` on parsed arguments. */
export function run({ values, positionals }: Parsed<typeof options>, io: Io): Promise<number> {
  return inspectCommand(
    {
      paths: positionals,
      json: values.json,
      ...(values.clients === undefined ? {} : { clients: values.clients }),
      ...(values.sarif === undefined ? {} : { sarif: values.sarif }),
      ...(values['fail-on'] === undefined ? {} : { failOn: values['fail-on'] }),
    },
    io,
  );
}
