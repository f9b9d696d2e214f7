/**
 * Regular expressions from untrusted text (a spec's `pattern` and `patternProperties`, a
 * model's reply checked against them, a record's arguments) evaluated by a linear-time engine
 * (re2js, a pure-JS port of RE2). V8's backtracking engine takes exponential time on patterns
 * such as `^(a+)+$` against `aaaa…!`, and a synchronous match cannot be interrupted: one value
 * could hang `judge` or `generate` past any signal.
 *
 * JSON Schema patterns are ECMAScript regular expressions (`u` flag). RE2's syntax differs in a
 * few places, so the pattern is translated first: `\uXXXX`, `\u{…}`, `\cX`, `\0`, `.` (no line
 * terminators), `\s`/`\S` (ECMAScript's white space), `[^]` and `[]`. What RE2 cannot evaluate
 * at all (backreferences, lookahead and lookbehind, repeat counts over 1000) and what is not a
 * valid ECMAScript pattern comes back as `{ok: false}` with the reason: callers skip that
 * constraint and say so (see `checks/validateCall.ts`), and `inspect` reports it
 * (`pattern-unsupported`).
 */
import { RE2JS } from 're2js';
import { MAX_CACHED_PATTERNS } from '../bounds';

/** What a compiled pattern offers: `RegExp.prototype.test`'s meaning (unanchored search). */
export interface LinearRegex {
  test(s: string): boolean;
}

/** Why a pattern cannot be evaluated in linear time. */
export type UnsupportedKind = 'invalid' | 'backreference' | 'lookaround' | 'unsupported';

/** A compiled pattern, or why there is none. */
export type LinearCompile = { ok: true; regex: LinearRegex } | { ok: false; kind: UnsupportedKind; reason: string };

// ECMAScript's WhiteSpace and LineTerminator code points, as RE2 class members.
const JS_SPACE = String.raw`\t\n\x{b}\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`;
// What `.` matches without the `s` flag: anything but a line terminator.
const JS_DOT = String.raw`[^\n\r\x{2028}\x{2029}]`;
const ANY = String.raw`\x{0}-\x{10ffff}`;

class Unsupported extends Error {
  constructor(
    readonly kind: UnsupportedKind,
    message: string,
  ) {
    super(message);
  }
}

const hex = (code: number): string => `\\x{${code.toString(16)}}`;

/**
 * Reads an escape at `src[i] === '\\'`; returns the RE2 text and the index after it. `inClass`
 * changes what `\s`, `\S` and `\b` mean.
 */
function translateEscape(src: string, i: number, inClass: boolean): [string, number] {
  const c = src[i + 1] ?? '';
  switch (c) {
    case 'u': {
      if (src[i + 2] === '{') {
        const end = src.indexOf('}', i + 3);
        return [hex(parseInt(src.slice(i + 3, end), 16)), end + 1];
      }
      const code = parseInt(src.slice(i + 2, i + 6), 16);
      // A surrogate pair written as two escapes is one code point to ECMAScript's `u` mode.
      if (code >= 0xd800 && code <= 0xdbff && src.slice(i + 6, i + 8) === '\\u') {
        const low = parseInt(src.slice(i + 8, i + 12), 16);
        if (low >= 0xdc00 && low <= 0xdfff) return [hex(0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00)), i + 12];
      }
      return [hex(code), i + 6];
    }
    case 'c':
      return [hex((src.charCodeAt(i + 2) ?? 0) % 32), i + 3];
    case '0':
      return [hex(0), i + 2];
    case 's':
      return [inClass ? JS_SPACE : `[${JS_SPACE}]`, i + 2];
    case 'S':
      // Inside a class RE2's own `\S` stands in (it differs only on Unicode spaces).
      return [inClass ? '\\S' : `[^${JS_SPACE}]`, i + 2];
    case 'k':
      throw new Unsupported('backreference', 'it uses a named backreference (\\k<…>)');
    case 'b':
      return [inClass ? hex(8) : '\\b', i + 2];
    default:
      if (c >= '1' && c <= '9' && !inClass) throw new Unsupported('backreference', `it uses a backreference (\\${c})`);
      return [`\\${c}`, i + 2];
  }
}

/** ECMAScript pattern text → RE2 pattern text, or `Unsupported`. The input already compiled as a JS RegExp. */
function translate(src: string): string {
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (c === '\\') {
      const [text, next] = translateEscape(src, i, false);
      out += text;
      i = next;
    } else if (c === '.') {
      out += JS_DOT;
      i++;
    } else if (c === '(' && src[i + 1] === '?') {
      const kind = src.slice(i + 2, i + 4);
      if (kind[0] === '=' || kind[0] === '!' || kind === '<=' || kind === '<!') throw new Unsupported('lookaround', 'it uses a lookahead or lookbehind');
      out += '(?';
      i += 2;
    } else if (c === '[') {
      let j = i + 1;
      const negated = src[j] === '^';
      if (negated) j++;
      if (src[j] === ']') {
        // `[]` matches nothing and `[^]` anything; RE2 reads `]` first in a class as a literal.
        out += negated ? `[${ANY}]` : `[^${ANY}]`;
        i = j + 1;
        continue;
      }
      out += negated ? '[^' : '[';
      while (j < src.length && src[j] !== ']') {
        if (src[j] === '\\') {
          const [text, next] = translateEscape(src, j, true);
          out += text;
          j = next;
        } else if (src[j] === '[') {
          out += '\\['; // a literal `[` in ECMAScript; RE2 would read `[:` as a POSIX class
          j++;
        } else {
          out += src[j];
          j++;
        }
      }
      out += ']';
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function compileUncached(pattern: string): LinearCompile {
  try {
    // Compiling a JS RegExp only parses it (no matching), so it is safe on any text; it tells
    // an invalid pattern from one RE2 cannot take.
    new RegExp(pattern, 'u');
  } catch (e) {
    return { ok: false, kind: 'invalid', reason: `it is not a valid regular expression (${(e as Error).message})` };
  }
  try {
    const re = RE2JS.compile(translate(pattern));
    return { ok: true, regex: { test: (s: string) => re.test(s) } };
  } catch (e) {
    if (e instanceof Unsupported) return { ok: false, kind: e.kind, reason: e.message };
    const message = (e as Error).message.replace(/^error parsing regexp: /, '');
    return { ok: false, kind: 'unsupported', reason: `the linear-time engine cannot evaluate it (${message})` };
  }
}

const cache = new Map<string, LinearCompile>();

/** Compiles an ECMAScript pattern for linear-time matching (cached per pattern text). Never throws. */
export function compileLinear(pattern: string): LinearCompile {
  let hit = cache.get(pattern);
  if (!hit) {
    if (cache.size >= MAX_CACHED_PATTERNS) cache.clear();
    hit = compileUncached(pattern);
    cache.set(pattern, hit);
  }
  return hit;
}
