import { CLIENT_IDS, FINDING_CODES, formatFixed, type ClientId, type FindingCodeDoc } from '../../core/complexity';
import { DEFAULT_LINT_CLIENTS } from '../../core/workspace/defaults';
import { inspectPaths } from '../../core/inspect';
import { EXIT, UsageError, type Io } from '../errors';
import { formatProblem, relativeTo, terminalSafe } from '../format';
import { pathOption } from '../options';
import type { OptionTable, Parsed } from '../command';
import { SNAPSHOT_FOLDER } from '../../core/workspace/layout';
import { shownName } from '../../core/complexity/toolNames';
import { renderTable } from '../table';
import { readBoundedFile } from '../../core/boundedRead';
import { FAIL_ON, failOnLine, INSPECT_SARIF_RULES, specCiFindings, type FailOn } from '../../core/ci/inspectCi';
import { sarifLog, sarifText, inGithubActions, type CiFinding } from '../../core/ci/sarif';
import { printAnnotations, writeCiFile } from '../ciOutputs';

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
        ),
      );
      const seen = new Set<keyof typeof FINDING_CODES>();
      for (const s of result.servers) {
        if (!s.findings.length) continue;
        io.out(`\n${field(s.name)} (${field(rel(s.source))}):`);
        for (const f of s.findings) {
          // A tool name may be a megabyte long: the line shows its start and its length.
          const where = f.tool ? `${shownName(f.tool)}${f.param ? `.${f.param}` : ''}` : '(server)';
          // The table says what; why each code matters is printed once, below.
          const why = FINDING_CODES[f.code].explanation;
          const what = f.message.endsWith(why) ? f.message.slice(0, -why.length).trim() : f.message;
          io.out(`  ${f.severity.padEnd(7)} ${f.code.padEnd(24)} ${field(where)}: ${field(what)}`);
          seen.add(f.code);
        }
      }
      if (seen.size) {
        io.out('\nWhy these matter:');
        for (const code of seen) {
          const { source } = sourceOf(code);
          io.out(`  ${code}: ${FINDING_CODES[code].explanation}${source ? ` (${source})` : ''}`);
        }
      }
    } else {
      io.out('No tool specs found.');
    }
    for (const u of result.unsnapshotted) {
      io.out(
        `\nServer "${u.name}" (${rel(u.file)}) has no snapshot yet: agent-seer snapshot ${rel(u.file)} --server ${JSON.stringify(u.name)} --out ${rel(u.snapshotFolder)}`,
      );
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
  if (gate) io.err(`agent-seer: ${gate}`);
  return result.problems.length ? EXIT.badInput : gate ? EXIT.failed : EXIT.ok;
}

const round = (n: number) => Number(formatFixed(n));

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
  --fail-on LEVEL exit 1 when a finding is at LEVEL or worse: error, or warning (errors and
                  warnings); one line on stderr says how many
  -h, --help      this text

With GITHUB_ACTIONS=true, each error and warning is also printed as a GitHub annotation
(::error file=…,line=…,col=…::message; on stderr with --json).

Exit 0; 1 when --fail-on found findings at its level; 2 when a path was bad input.`;

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
