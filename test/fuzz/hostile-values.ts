/**
 * The values a hostile or broken client puts where a field's value should be: every JSON type,
 * huge and odd strings, deep nesting, prototype-pollution keys, template and variable syntax.
 * Built from JSON text where a key such as `__proto__` must be an own key (an object literal would
 * set the prototype instead).
 */
type Pick = () => number;

export function choose<T>(pick: Pick, items: readonly T[]): T {
  return items[Math.floor(pick() * items.length)] as T;
}

export function int(pick: Pick, max: number): number {
  return Math.floor(pick() * max);
}

const UNICODE = [
  "\u202e",
  "🙂",
  "\ud800",
  "\udfff",
  "\u0000",
  "\uFEFF",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
  "e\u0301",
  "\u2028\u2029",
  "Ω≈ç√",
  "\\",
  '"',
  "\n\r\t",
];
const SYNTAX = [
  "{{ request.object }}",
  "{{ a.b.c[0] }}",
  "{{",
  "}}",
  "$(./../x)",
  "{{ regex_match('(a+)+$', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!') }}",
  "*",
  "?*",
  "!",
  ">=1",
  "1Gi",
  "<0",
];
const PROTO_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "hasOwnProperty",
  "toString",
  "valueOf",
  "__defineGetter__",
];

/** A string: empty, short odd, unicode, template syntax, number-like, or long (rarely up to 200 KB). */
export function hostileString(pick: Pick): string {
  const r = pick();
  if (r < 0.1) return "";
  if (r < 0.3) return choose(pick, UNICODE).repeat(1 + int(pick, 4));
  if (r < 0.45) return choose(pick, SYNTAX);
  if (r < 0.55) return String(int(pick, 1e6));
  if (r < 0.6) return choose(pick, ["true", "null", "1e999", "-0", "NaN"]);
  if (r < 0.97) return "x".repeat(int(pick, 300));
  return "y".repeat(1000 + int(pick, r < 0.995 ? 20_000 : 200_000));
}

/** Nesting `depth` deep of objects or arrays around a leaf. */
export function deep(depth: number, asArray: boolean, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = asArray ? [v] : { a: v };
  return v;
}

/** An object whose own keys include prototype-pollution names. */
export function pollutingObject(pick: Pick): unknown {
  const key = choose(pick, PROTO_KEYS);
  const inner = choose(pick, ['{"polluted":true}', '{"prototype":{"polluted":true}}', "null", "1", '["x"]', '"s"']);
  return JSON.parse(`{"${key}":${inner},"name":"x"}`) as unknown;
}

/** Any hostile value, of any JSON type. */
export function hostileValue(pick: Pick): unknown {
  const r = pick();
  if (r < 0.08) return null;
  if (r < 0.14) return pick() < 0.5;
  if (r < 0.24) return choose(pick, [0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, Number.MIN_VALUE, -0]);
  if (r < 0.5) return hostileString(pick);
  if (r < 0.58) return [];
  if (r < 0.64) return {};
  if (r < 0.7) return Array.from({ length: 1 + int(pick, 5) }, () => hostileString(pick));
  if (r < 0.78) return pollutingObject(pick);
  if (r < 0.86) return deep(1 + int(pick, pick() < 0.9 ? 50 : 3000), pick() < 0.5, hostileString(pick));
  if (r < 0.92)
    return Array.from({ length: int(pick, pick() < 0.95 ? 20 : 5000) }, (_, i) => ({
      name: `c${i}`,
      image: hostileString(pick),
    }));
  return { [hostileString(pick).slice(0, 50)]: hostileString(pick) };
}
