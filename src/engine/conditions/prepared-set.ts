/**
 * AnyIn, AllIn, AnyNotIn and AllNotIn against a value list fixed in the policy, prepared once when
 * the conditions compile: the items are stringified (`%v`) once, exact items go into a Set, and the
 * items holding wildcards are kept apart. A key item is then found in the list exactly when the
 * general operators (any-in.ts, all-in.ts) find it: equal to an item, matched by a wildcard item,
 * or, when the key itself holds a wildcard, matching some item.
 */
import type { JsonValue } from "../api/json.js";
import { hasWildcard, wildcardMatch } from "../values/wildcard.js";
import { goFormatValue } from "../go/format-value.js";
import type { OperatorFn } from "./types.js";

export class PreparedSet {
  readonly #items: readonly string[];
  readonly #exact: ReadonlySet<string>;
  readonly #wildcards: readonly string[];

  constructor(values: readonly JsonValue[]) {
    this.#items = values.map((v) => goFormatValue(v));
    this.#exact = new Set(this.#items);
    this.#wildcards = this.#items.filter(hasWildcard);
  }

  /** Whether the key item matches some item, with wildcards on either side (`foundIn`). */
  has(key: string): boolean {
    if (this.#exact.has(key)) return true;
    for (const w of this.#wildcards) if (wildcardMatch(w, key)) return true;
    if (!hasWildcard(key)) return false;
    for (const item of this.#items) if (wildcardMatch(key, item)) return true;
    return false;
  }
}

type Quantifier = "any" | "all";

const SET_OPERATORS: Readonly<Record<string, { readonly quantifier: Quantifier; readonly notIn: boolean }>> = {
  anyin: { quantifier: "any", notIn: false },
  allin: { quantifier: "all", notIn: false },
  anynotin: { quantifier: "any", notIn: true },
  allnotin: { quantifier: "all", notIn: true },
};

/**
 * The operator `name` (any case) prepared for the fixed `value`, when it is a set operator and the
 * value is a list; otherwise undefined (use the general operator). The prepared operator ignores
 * the value it is given: it is the fixed one.
 */
export function preparedSetOperator(name: string, value: JsonValue): OperatorFn | undefined {
  const op = SET_OPERATORS[name.toLowerCase()];
  if (op === undefined || !Array.isArray(value)) return undefined;
  const set = new PreparedSet(value);
  const notIn = op.notIn;
  const inSet = (item: JsonValue): boolean => set.has(goFormatValue(item)) !== notIn;
  const all = op.quantifier === "all";
  return (key) => {
    if (typeof key === "string") return set.has(key) !== notIn;
    if (typeof key === "number" || typeof key === "boolean") return set.has(goFormatValue(key)) !== notIn;
    if (!Array.isArray(key)) return false;
    return all ? key.every(inSet) : key.some(inSet);
  };
}
