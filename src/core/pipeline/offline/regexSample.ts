/**
 * A string that matches a simple regular expression (JSON Schema `pattern`): literals, escapes
 * (`\d \w \s \.`), classes (`[a-z0-9_-]`, negated ones), groups with alternation, `?` `*` `+`
 * `{n}` `{n,m}`, anchors. Enough for the patterns tool schemas use (ids, codes, slugs); the
 * caller tests the result with a real RegExp and falls back when it does not match.
 */
import { MAX_PATTERN_SAMPLE_STEPS, MAX_SAMPLE_STRING } from '../../bounds';
import type { Rng } from './rng';

type Node = { t: 'chars'; set: string } | { t: 'group'; alts: Node[][] } | { t: 'repeat'; node: Node; min: number; max: number };

const DIGITS = '0123456789';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const WORD = `${LOWER}${UPPER}${DIGITS}_`;
const PRINTABLE = `${WORD} -.:/@#`;

function classEscape(c: string): string | undefined {
  switch (c) {
    case 'd':
      return DIGITS;
    case 'w':
      return WORD;
    case 's':
      return ' ';
    case 'D':
      return `${LOWER}${UPPER}`;
    case 'W':
      return '-.:';
    case 'S':
      return `${LOWER}${DIGITS}`;
    default:
      return undefined;
  }
}

class Parser {
  i = 0;
  constructor(private readonly src: string) {}

  parseAlts(): Node[][] {
    const alts: Node[][] = [[]];
    while (this.i < this.src.length) {
      const c = this.src[this.i] as string;
      if (c === ')') break;
      if (c === '|') {
        this.i++;
        alts.push([]);
        continue;
      }
      const atom = this.parseAtom();
      if (!atom) continue;
      (alts[alts.length - 1] as Node[]).push(this.parseQuant(atom));
    }
    return alts;
  }

  parseAtom(): Node | undefined {
    const c = this.src[this.i++] as string;
    switch (c) {
      case '^':
      case '$':
        return undefined;
      case '.':
        return { t: 'chars', set: `${LOWER}${DIGITS}` };
      case '(': {
        if (this.src[this.i] === '?') {
          // (?:…), (?=…), (?!…), (?<name>…): treat all as plain groups (lookarounds rarely matter for ids).
          this.i++;
          if (this.src[this.i] === '<' && /[A-Za-z]/.test(this.src[this.i + 1] ?? '')) {
            while (this.i < this.src.length && this.src[this.i] !== '>') this.i++;
          }
          this.i++;
        }
        const alts = this.parseAlts();
        this.i++; // ')'
        return { t: 'group', alts };
      }
      case '[':
        return { t: 'chars', set: this.parseClass() };
      case '\\': {
        const e = this.src[this.i++] ?? '';
        return { t: 'chars', set: classEscape(e) ?? (e === 'n' ? '\n' : e === 't' ? '\t' : e) };
      }
      default:
        return { t: 'chars', set: c };
    }
  }

  parseClass(): string {
    let negate = false;
    if (this.src[this.i] === '^') {
      negate = true;
      this.i++;
    }
    let set = '';
    let first = true;
    while (this.i < this.src.length && (this.src[this.i] !== ']' || first)) {
      first = false;
      let c = this.src[this.i++] as string;
      if (c === '\\') {
        const e = this.src[this.i++] ?? '';
        const cls = classEscape(e);
        if (cls) {
          set += cls;
          continue;
        }
        c = e;
      }
      if (this.src[this.i] === '-' && this.src[this.i + 1] !== undefined && this.src[this.i + 1] !== ']') {
        this.i++;
        let to = this.src[this.i++] as string;
        if (to === '\\') to = this.src[this.i++] ?? to;
        for (let code = c.charCodeAt(0); code <= to.charCodeAt(0) && code - c.charCodeAt(0) < 200; code++) set += String.fromCharCode(code);
      } else set += c;
    }
    this.i++; // ']'
    if (negate) return [...PRINTABLE].filter((ch) => !set.includes(ch)).join('') || 'x';
    return set || 'x';
  }

  parseQuant(node: Node): Node {
    const c = this.src[this.i];
    let min = 1;
    let max = 1;
    if (c === '?') [min, max] = [0, 1];
    else if (c === '*') [min, max] = [0, 3];
    else if (c === '+') [min, max] = [1, 4];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
      if (!m) return node;
      min = Number(m[1]);
      max = m[2] ? (m[3] ? Number(m[3]) : min + 3) : min;
      this.i += m[0].length - 1;
    } else return node;
    this.i++;
    if (this.src[this.i] === '?' || this.src[this.i] === '+') this.i++; // lazy/possessive
    return { t: 'repeat', node, min, max: Math.min(max, min + 8) };
  }
}

/**
 * A pattern whose sample would pass `MAX_SAMPLE_STRING` (nested `{1000}`s multiply), or whose
 * walk would take more steps than that: `((){1000}){1000}` emits no character but would loop a
 * million times, so every node visited counts, not only characters.
 */
class TooLong extends Error {}

function emit(node: Node, rng: Rng, budget: { left: number; steps: number }): string {
  if (--budget.steps < 0) throw new TooLong();
  switch (node.t) {
    case 'chars':
      if (--budget.left < 0) throw new TooLong();
      return node.set[rng.int(0, node.set.length - 1)] ?? '';
    case 'group': {
      const alt = rng.pick(node.alts) ?? [];
      return alt.map((n) => emit(n, rng, budget)).join('');
    }
    case 'repeat': {
      const n = rng.int(node.min, node.max);
      const parts: string[] = [];
      for (let k = 0; k < n; k++) parts.push(emit(node.node, rng, budget));
      return parts.join('');
    }
  }
}

/**
 * A candidate string for `pattern`, or undefined when the pattern is not a valid RegExp, its
 * sample would be longer than `MAX_SAMPLE_STRING` or take more than `MAX_PATTERN_SAMPLE_STEPS`,
 * or it nests too deeply for the recursive parser (thousands of groups: a RangeError, caught here
 * so that a hostile pattern costs one value, not the run). Check the result.
 */
export function sampleFromPattern(pattern: string, rng: Rng): string | undefined {
  try {
    new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
  try {
    const alts = new Parser(pattern).parseAlts();
    return emit({ t: 'group', alts }, rng, { left: MAX_SAMPLE_STRING, steps: MAX_PATTERN_SAMPLE_STEPS });
  } catch (e) {
    if (e instanceof TooLong || e instanceof RangeError) return undefined;
    throw e;
  }
}
