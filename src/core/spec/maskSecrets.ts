/**
 * Masking secrets in what Agent Seer prints about servers: command lines and URLs (detect, the
 * target description) and server stderr (error messages). One rule set, documented in the
 * README ("Secrets in output"). Variable references (`${input:token}`, `${env:X}`, `{env:X}`)
 * only name a secret, so they stay visible.
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
  const values = [...new Set(knownValues)].filter((v) => v.length >= MIN_KNOWN_VALUE).sort((a, b) => b.length - a.length);
  for (const value of values) out = out.split(value).join(MASK);
  return maskText(out);
}

/** The shape-based rules shared by every entry point. */
function maskText(text: string): string {
  let out = text
    // user:password@ or token@ in URLs
    .replace(/(:\/\/)([^/@\s?#]+)@/g, (all, scheme: string, userinfo: string) => {
      if (VARIABLE_REF.test(userinfo)) return all;
      const colon = userinfo.indexOf(':');
      return colon >= 0 ? `${scheme}${userinfo.slice(0, colon)}:${MASK}@` : `${scheme}${MASK}@`;
    })
    // NAME=value after ?, &, #, ; (URL parameters) or at a word start (env-style KEY=value)
    .replace(/(^|[?&#;\s])([A-Za-z_][\w.-]*)=([^&#;\s]*)/g, (all, lead: string, name: string, value: string) =>
      value !== '' && value !== MASK && looksSecretName(name) && !VARIABLE_REF.test(value) ? `${lead}${name}=${MASK}` : all,
    )
    .replace(BEARER, (all, word: string, value: string) => (VARIABLE_REF.test(value) ? all : `${word} ${MASK}`));
  for (const pattern of TOKEN_LITERALS) out = out.replace(pattern, MASK);
  return out;
}
