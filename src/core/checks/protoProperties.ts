/**
 * ajv leaves a property named `__proto__` out of `properties` (it filters the name when it
 * compiles, against prototype pollution), so `additionalProperties: false` then rejects the very
 * argument the schema declares, and its own schema is never checked. Before compiling, such a
 * property is moved to `patternProperties` under an exact pattern, which ajv checks like any key.
 * (`required: ["__proto__"]` is checked by the caller: ajv's `data.__proto__ === undefined` is
 * never true, since every object inherits one.)
 */
import { isRecord } from '../util/isRecord';
import { setOwn } from '../util/ownKeys';

const PROTO = '__proto__';
/** The exact pattern that stands for the key. */
export const PROTO_PATTERN = '^__proto__$';

/** `schema` with every `properties.__proto__` moved to `patternProperties`; the same object when it has none. */
export function protoAsPattern(schema: unknown, depth = 0): unknown {
  if (depth > 500 || typeof schema !== 'object' || schema === null) return schema;
  if (Array.isArray(schema)) {
    let changed = false;
    const out = schema.map((v) => {
      const w = protoAsPattern(v, depth + 1);
      if (w !== v) changed = true;
      return w;
    });
    return changed ? out : schema;
  }
  if (!isRecord(schema)) return schema;
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(schema)) {
    const w = protoAsPattern(v, depth + 1);
    if (w !== v) {
      out ??= { ...schema };
      setOwn(out, k, w);
    }
  }
  const props = (out ?? schema).properties;
  if (isRecord(props) && Object.hasOwn(props, PROTO)) {
    out ??= { ...schema };
    const rest = Object.fromEntries(Object.entries(props).filter(([k]) => k !== PROTO));
    const patterns = isRecord(out.patternProperties) ? { ...out.patternProperties } : {};
    patterns[PROTO_PATTERN] = props[PROTO];
    out.properties = rest;
    out.patternProperties = patterns;
  }
  return out ?? schema;
}
