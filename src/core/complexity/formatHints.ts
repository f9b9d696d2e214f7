/**
 * Guessing, from a parameter's name and description, that a free string really carries a
 * structured value (a date, an e-mail address, a URL, a UUID, one of a fixed set of words).
 * Heuristics: tuned to stay quiet on the fixture corpus unless the text says so plainly, because
 * a noisy lint gets switched off.
 */

/** The kind of structured value a string parameter seems to expect. */
export type StructuredKind = 'date/time' | 'email' | 'url' | 'uuid' | 'enum-like';

/** What a parameter looks like it expects and the schema keyword that would say so. */
export interface StructuredHint {
  kind: StructuredKind;
  /** The keyword to add, e.g. `format: "date-time"`. */
  suggestion: string;
  /** What gave it away, for the message. */
  evidence: string;
}

/** Lower-case words of a parameter name: `startTimestamp`, `start_timestamp`, `Start-Timestamp` → start, timestamp. */
export function nameTokens(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const DATE_WORDS = new Set(['date', 'datetime', 'timestamp', 'time', 'since', 'until', 'deadline', 'birthday', 'dob']);
const URL_WORDS = new Set(['url', 'uri', 'href', 'endpoint', 'webhook']);
// Names of free prose: a date or URL mentioned in their description is an example, not the format.
const PROSE_WORDS = new Set([
  'name',
  'title',
  'description',
  'label',
  'text',
  'message',
  'body',
  'content',
  'comment',
  'note',
  'query',
  'prompt',
  'summary',
  'instructions',
]);
const DATE_TEXT = /\b(ISO[- ]?8601|RFC[- ]?3339|YYYY-MM-DD|date[- ]?time string|timestamp string)\b/i;
// "username or email address" offers an alternative, so it is not an e-mail-only value.
const EMAIL_TEXT = /(?<!\bor )\be-?mail address(es)?\b/i;
const UUID_TEXT = /\b(UUID|GUID)\b/;
// A description that opens by calling the value a URL ("The URL we call…", "URL of the page").
const URL_TEXT = /^\s*(the |a |an )?(absolute |full |public |fully qualified )?(URL|URI)\b/i;
const ENUM_TEXT =
  /\b((must|can|should|may) be (either |)one of|one of the following|possible values|allowed values|valid values|valid options|accepted values)\b|\bone of:/i;
const Q = String.raw`['"\x60][A-Za-z_][\w-]*['"\x60]`;
// Quoted words offered as alternatives: "'asc' or 'desc'", "`a`, `b`, or `c`", "'x'|'y'".
const QUOTED_ALTERNATIVES = new RegExp(String.raw`${Q}(\s*,\s*${Q})*\s*,?\s*(\bor\b|\|)\s*${Q}`);
// Alternatives named in parentheses: "local branches ('local'), remote branches ('remote') or all ('all')".
const PAREN_QUOTED = new RegExp(String.raw`\(\s*${Q}\s*\)`, 'g');
// Bare alternatives joined by pipes: "asc|desc".
const PIPE_ALTERNATIVES = /\b[a-z_][\w-]*\s*\|\s*[a-z_][\w-]*\b/i;

/** How each kind reads in a message. */
const KIND_LABEL: Record<StructuredKind, string> = {
  'date/time': 'a date or time',
  email: 'an e-mail address',
  url: 'a URL',
  uuid: 'a UUID',
  'enum-like': 'one of a fixed set of values',
};

/** How a kind reads in a sentence ("a date or time", "one of a fixed set of values"). */
export function kindLabel(kind: StructuredKind): string {
  return KIND_LABEL[kind];
}

/** A hint when the name or description says the string carries a structured value; else undefined. */
export function structuredStringHint(name: string, description: string | undefined): StructuredHint | undefined {
  const tokens = nameTokens(name);
  const last = tokens[tokens.length - 1];
  const prose = last !== undefined && PROSE_WORDS.has(last);
  const text = prose ? '' : (description ?? '');
  const byName = (word: string): string => `its name ("${word}")`;
  const byText = (match: RegExpExecArray | null): string => `its description ("${match?.[0] ?? ''}")`;

  const dateWord = tokens.find((t) => DATE_WORDS.has(t)) ?? (tokens.length > 1 && last === 'at' ? 'at' : undefined);
  // "time_zone" names a zone, not a time ("timeout" is already one token).
  const isZone = tokens.includes('zone') || tokens.includes('timezone');
  const dateText = DATE_TEXT.exec(text);
  if (!isZone && (dateWord || dateText)) {
    return { kind: 'date/time', suggestion: 'format: "date-time" (or "date")', evidence: dateText ? byText(dateText) : byName(name) };
  }
  const emailText = EMAIL_TEXT.exec(text);
  if (tokens.includes('email') || emailText) {
    return { kind: 'email', suggestion: 'format: "email"', evidence: tokens.includes('email') ? byName(name) : byText(emailText) };
  }
  const urlWord = tokens.find((t) => URL_WORDS.has(t));
  const urlText = URL_TEXT.exec(text);
  if (urlWord || urlText) {
    return { kind: 'url', suggestion: 'format: "uri"', evidence: urlWord ? byName(name) : byText(urlText) };
  }
  const uuidText = UUID_TEXT.exec(text);
  if (tokens.includes('uuid') || tokens.includes('guid') || uuidText) {
    return { kind: 'uuid', suggestion: 'format: "uuid"', evidence: uuidText ? byText(uuidText) : byName(name) };
  }
  const enumText =
    ENUM_TEXT.exec(text) ??
    QUOTED_ALTERNATIVES.exec(text) ??
    PIPE_ALTERNATIVES.exec(text) ??
    ((text.match(PAREN_QUOTED)?.length ?? 0) >= 2 && /\bor\b/.test(text) ? /\(\s*\S+\s*\)/.exec(text) : null);
  if (enumText) {
    return { kind: 'enum-like', suggestion: 'an `enum` of the accepted values', evidence: byText(enumText) };
  }
  return undefined;
}
