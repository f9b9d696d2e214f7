/**
 * Masking secrets in what Agent Seer prints or stores: command lines and URLs (detect, the
 * target description, LLM endpoint messages) and server stderr (error messages). One rule set,
 * documented in docs/security.md ("Secrets in output"). Variable references (`${input:token}`,
 * `${env:X}`, `{env:X}`) only name a secret, so they stay visible.
 *
 * A stream (a server's stderr) is masked as it arrives, before anything is cut from it
 * ({@link SecretStreamMasker}): a secret split by a cut would otherwise leak its tail.
 */

/** What a masked value is replaced with. */
export const MASK = '***';

/** Names of flags, `KEY=value` keys, env vars and URL parameters that hold secrets. */
const SECRET_NAME = /token|secret|passw|pwd|api_?key|apikey|access_?key|private_?key|auth(?!or)|credential|signature|session|cookie|(^|[^a-z])(key|sig|pat)$/i;

/** Short flags whose value is a secret: `-k` is the usual short form of `--key`/`--api-key`. */
const SECRET_SHORT_FLAGS = new Set(['-k']);

/**
 * Literal credentials recognisable by shape, wherever they appear: GitHub (`ghp_`…,
 * `github_pat_`), OpenAI/Anthropic (`sk-`…), Slack (`xox?-`), Google (`AIza`), GitLab
 * (`glpat-`), AWS access key ids, JWTs, and `Bearer` values.
 */
const TOKEN_LITERALS = [
  /\b(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]{16,}/g,
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAIza[A-Za-z0-9_-]{30,}/g,
  /\bglpat-[A-Za-z0-9_-]{16,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g,
];
const BEARER = /\b(Bearer|Basic)\s+([A-Za-z0-9._~+/=-]{8,})/gi;

/** `${…}` or `{env:…}`: a reference to a value, not the value. */
const VARIABLE_REF = /\$\{[^}]*\}|\{env:[^}]*\}/;

/** Known values shorter than this are not masked in free text ("1", "true" would garble it). */
const MIN_KNOWN_VALUE = 4;

/** True when a flag, key or parameter name says its value is a secret. */
export function looksSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * A command line fit to print: the value after a secret-looking flag (`--token X`,
 * `--api-key=X`, `-k X`), the value of a secret-looking `KEY=value`, secrets inside URLs and
 * literal tokens are masked. Arguments that are variable references stay as written.
 */
export function maskArgs(args: readonly string[]): string[] {
  const out: string[] = [];
  let maskNext = false;
  for (const arg of args) {
    if (maskNext) {
      maskNext = false;
      if (!arg.startsWith('-')) {
        out.push(VARIABLE_REF.test(arg) ? arg : MASK);
        continue;
      }
    }
    const flag = /^(--?)([A-Za-z][\w.-]*)(?:=(.*))?$/s.exec(arg);
    if (flag) {
      const [, dashes = '', name = '', value] = flag;
      const secret = SECRET_SHORT_FLAGS.has(`${dashes}${name}`) || (dashes === '--' && looksSecretName(name));
      if (secret && value === undefined) maskNext = true;
      if (secret && value !== undefined) {
        out.push(VARIABLE_REF.test(value) ? arg : `${dashes}${name}=${MASK}`);
        continue;
      }
    }
    out.push(maskText(arg));
  }
  return out;
}

/** A URL fit to print: the password (or a lone user name, often a token) and secret-looking query or fragment parameters masked. */
export function maskUrl(url: string): string {
  return maskText(url);
}

/**
 * Free text (a server's stderr) fit to print: every occurrence of `knownValues` (the env values
 * and header values the config hands the server; at least 4 characters) is masked, then
 * `KEY=value` pairs with secret-looking keys, URL credentials and literal tokens.
 */
export function maskSecretText(text: string, knownValues: readonly string[] = []): string {
  let out = text;
  for (const value of usableValues(knownValues)) out = out.split(value).join(MASK);
  return maskText(out);
}

/** user:password@ or token@ in URLs. */
const URL_USERINFO = /(:\/\/)([^/@\s?#]+)@/g;
/** NAME=value after ?, &, #, ; (URL parameters) or at a word start (env-style KEY=value). */
const NAME_VALUE = /(^|[?&#;\s])([A-Za-z_][\w.-]*)=([^&#;\s]*)/g;

/** A URL's user info (`user:pass@`, `TOKEN@`) masked, keeping a user name and variable references (a `URL_USERINFO` replacer). */
function maskUserinfo(all: string, scheme: string, userinfo: string): string {
  if (VARIABLE_REF.test(userinfo)) return all;
  const colon = userinfo.indexOf(':');
  return colon >= 0 ? `${scheme}${userinfo.slice(0, colon)}:${MASK}@` : `${scheme}${MASK}@`;
}

/** The shape-based rules shared by every entry point. */
function maskText(text: string): string {
  let out = text
    .replace(URL_USERINFO, maskUserinfo)
    .replace(NAME_VALUE, (all, lead: string, name: string, value: string) =>
      value !== '' && value !== MASK && looksSecretName(name) && !VARIABLE_REF.test(value) ? `${lead}${name}=${MASK}` : all,
    )
    .replace(BEARER, (all, word: string, value: string) => (VARIABLE_REF.test(value) ? all : `${word} ${MASK}`));
  for (const pattern of TOKEN_LITERALS) out = out.replace(pattern, MASK);
  return out;
}

/**
 * The values inside a URL that are secrets: the user name and password of its user info and the
 * values of secret-looking query or fragment parameters, each as written and decoded. For masking
 * the URL wherever it is quoted (an LLM endpoint's error text quotes the URL it failed to fetch).
 */
export function urlSecrets(href: string | undefined): string[] {
  if (!href) return [];
  const out: string[] = [];
  const add = (raw: string) => {
    if (raw === '' || VARIABLE_REF.test(raw)) return;
    out.push(raw);
    try {
      out.push(decodeURIComponent(raw.replace(/\+/g, ' ')));
    } catch {
      // not valid percent-encoding: the raw form is what appears
    }
  };
  const userinfo = /^[A-Za-z][\w+.-]*:\/\/([^/@\s?#]+)@/.exec(href)?.[1];
  if (userinfo !== undefined) {
    const colon = userinfo.indexOf(':');
    if (colon < 0) add(userinfo);
    else {
      add(userinfo.slice(0, colon));
      add(userinfo.slice(colon + 1));
    }
  }
  for (const [, , name = '', value = ''] of href.matchAll(NAME_VALUE)) if (looksSecretName(name)) add(value);
  return [...new Set(out)];
}

/** A URL fit to print with nothing secret in it: user info, query and fragment dropped. */
export function urlWithoutCredentials(href: string): string {
  try {
    const url = new URL(href);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return maskText(href.replace(/[?#].*$/s, ''));
  }
}

/** The known values worth masking: distinct, at least {@link MIN_KNOWN_VALUE} characters, longest first. */
function usableValues(knownValues: readonly string[]): string[] {
  return [...new Set(knownValues)].filter((v) => v.length >= MIN_KNOWN_VALUE).sort((a, b) => b.length - a.length);
}

/**
 * Where `text` holds something {@link maskSecretText} masks, as [start, end) spans on the raw
 * text (overlapping and over-wide spans are fine: they only say where a stream must not be cut).
 */
function secretSpans(text: string, values: readonly string[]): [number, number][] {
  const spans: [number, number][] = [];
  for (const value of values) {
    for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) spans.push([at, at + value.length]);
  }
  for (const m of text.matchAll(URL_USERINFO)) spans.push([m.index, m.index + m[0].length]);
  for (const m of text.matchAll(NAME_VALUE)) if (looksSecretName(m[2] ?? '')) spans.push([m.index, m.index + m[0].length]);
  for (const m of text.matchAll(BEARER)) spans.push([m.index, m.index + m[0].length]);
  for (const pattern of TOKEN_LITERALS) for (const m of text.matchAll(pattern)) spans.push([m.index, m.index + m[0].length]);
  return spans;
}

/**
 * Shape rules need this much text after a cut point to see a secret that starts before it
 * (the longest credential shapes — JWT headers, `Bearer` values — are well under it).
 */
const SHAPE_HOLDBACK = 1024;
/** Text is masked and released in pieces of at least this many characters (so work stays linear). */
const STREAM_PIECE = 4096;
/** A single secret-looking run longer than this is released masked without waiting for its end. */
const STREAM_MAX_PENDING = 65_536;

/**
 * Masks a text stream as it arrives, so that what it releases can be cut anywhere without a
 * secret fragment surviving: a piece is released only up to a point no secret straddles (the
 * last `holdback` characters — the longest known value, at least {@link SHAPE_HOLDBACK} — wait
 * for the text after them). {@link pendingView} shows the held text masked, and a held tail
 * that begins a known value (4+ characters of it: a secret still being written) masked too.
 */
export class SecretStreamMasker {
  private readonly values: string[];
  private readonly holdback: number;
  /** No known value spans a line end, so a cut after one splits none. */
  private readonly linesSafe: boolean;
  private pending = '';
  /** A secret was released before its end: its continuation (up to whitespace) is masked too. */
  private inSecret = false;

  constructor(knownValues: readonly string[] = []) {
    this.values = usableValues(knownValues);
    this.holdback = Math.max(SHAPE_HOLDBACK, this.values[0]?.length ?? 0);
    this.linesSafe = this.values.every((v) => !v.includes('\n'));
  }

  /** Takes the next text of the stream; returns what can now be released, masked ('' while held). */
  push(text: string): string {
    let head = '';
    if (this.inSecret) {
      const run = /^\S*/.exec(text)?.[0] ?? '';
      if (run.length === text.length) return text === '' ? '' : MASK_CONTINUED;
      this.inSecret = false;
      head = run === '' ? '' : MASK_CONTINUED;
      text = text.slice(run.length);
    }
    this.pending += text;
    if (this.pending.length < 2 * this.holdback + STREAM_PIECE) return head;
    return head + this.release();
  }

  /** Everything held, masked as if the stream ended here (the stream itself goes on). */
  pendingView(): string {
    let text = this.pending;
    let partial = '';
    for (const value of this.values) {
      // The earliest start wins: the longest held tail that is a proper prefix of the value.
      const head = value.slice(0, MIN_KNOWN_VALUE);
      for (let at = text.indexOf(head, Math.max(0, text.length - value.length + 1)); at >= 0; at = text.indexOf(head, at + 1)) {
        if (value.startsWith(text.slice(at))) {
          if (text.length - at > partial.length) partial = text.slice(at);
          break;
        }
      }
    }
    if (partial !== '') text = text.slice(0, -partial.length);
    return maskSecretText(text, this.values) + (partial === '' ? '' : MASK);
  }

  /** Releases the held text up to the last safe point before the holdback. */
  private release(): string {
    const text = this.pending;
    let cut = text.length - this.holdback;
    // A line end is the most natural place, and a cheap one: no shape rule matches across a line
    // end but `Bearer`/`Basic` (checked), so when no known value holds one, nothing straddles it.
    const newline = text.lastIndexOf('\n', cut - 1);
    if (newline >= STREAM_PIECE) {
      cut = newline + 1;
      const head = text.slice(0, cut);
      if (this.linesSafe && !BEARER_AT_END.test(head)) {
        this.pending = text.slice(cut);
        return maskSecretText(head, this.values);
      }
    }
    const spans = secretSpans(text, this.values);
    for (let moved = true; moved;) {
      moved = false;
      for (const [start, end] of spans) {
        if (start < cut && cut < end) {
          cut = start;
          moved = true;
        }
      }
    }
    if (cut === 0 && text.length > STREAM_MAX_PENDING) {
      // One secret-looking run longer than any real credential: mask what is here and the rest of it.
      this.pending = '';
      this.inSecret = !/\s$/.test(text);
      return maskSecretText(text, this.values);
    }
    this.pending = text.slice(cut);
    return maskSecretText(text.slice(0, cut), this.values);
  }
}

/** A `Bearer`/`Basic` whose value may follow on the next line. */
const BEARER_AT_END = /\b(Bearer|Basic)\s*$/i;

/** What the continuation of a secret released before its end becomes. */
const MASK_CONTINUED = MASK;

/** A secret-looking URL parameter (after `?`, `&`, `#` or `;`). */
const URL_PARAM = /([?&#;])([A-Za-z_][\w.-]*)=([^&#;\s]*)/g;

/**
 * Only the URL rules of {@link maskSecretText} (user info, secret-looking parameters), for text
 * whose other shapes are not worth the risk of over-masking (an LLM endpoint's error message).
 */
export function maskUrlCredentials(text: string): string {
  return text
    .replace(URL_USERINFO, maskUserinfo)
    .replace(URL_PARAM, (all, lead: string, name: string, value: string) =>
      value !== '' && value !== MASK && looksSecretName(name) && !VARIABLE_REF.test(value) ? `${lead}${name}=${MASK}` : all,
    );
}
