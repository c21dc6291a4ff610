/**
 * Evaluation with the semantics of Kyverno's go-jmespath fork, compiled once per expression: each
 * AST node becomes a closure that holds its own children, names and literals, so evaluation does no
 * dispatch on node kinds (figures: docs/adr/0004-appendix-figures-in-code.md).
 *
 * A field access on a map that lacks the key yields MISSING (the fork's NotFoundError). MISSING
 * propagates through sub-expressions, index expressions and the right side of `&&`, and becomes
 * null in `||`, comparisons, `!`, pipes, function arguments, multi-selects and projections. The
 * left side of `[]`, `[?...]` and `.*` swallows every error but a limit.
 * Every node visit costs one step of the evaluation budget.
 */
import type { JsonValue } from "../api/json.js";
import type { ComparatorOp, Node } from "./ast.js";
import { isInterruption } from "../interrupt/index.js";
import { isLimitError, limitError } from "./errors.js";
import { ExprRef, MISSING, type EvalState, type Outcome, type Value } from "./eval-state.js";
import { checkArguments, type BoundFunction } from "./function-call.js";
import { sliceArray } from "./slice.js";
import { JmesPathError, type FunctionArg } from "./types.js";
import { deepEqual, isFalse } from "./values.js";

/** A compiled node: evaluates against the current value. */
export type Evaluator = (value: Value, st: EvalState) => Outcome;

function orNull(v: Outcome): Value {
  return v === MISSING ? null : v;
}

function step(st: EvalState): void {
  if (++st.steps > st.checkAt) st.checkpoint();
}

function isPlainObject(v: Value): v is Record<string, JsonValue> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof ExprRef);
}

export function compileNode(node: Node): Evaluator {
  switch (node.type) {
    case "Field":
      return field(node.name, node.guarded);
    case "Subexpression":
    case "IndexExpression": {
      const left = compileNode(node.left);
      const right = compileNode(node.right);
      return (value, st) => {
        step(st);
        const l = left(value, st);
        return l === MISSING ? MISSING : right(l, st);
      };
    }
    case "Current":
    case "Identity":
      return (value, st) => {
        step(st);
        return value;
      };
    case "Literal": {
      const literal = node.value;
      return (_value, st) => {
        step(st);
        return literal;
      };
    }
    case "Comparator":
      return comparator(node.op, compileNode(node.left), compileNode(node.right));
    case "Or": {
      const left = compileNode(node.left);
      const right = compileNode(node.right);
      return (value, st) => {
        step(st);
        const l = orNull(left(value, st));
        return isFalse(l) ? orNull(right(value, st)) : l;
      };
    }
    case "And": {
      const left = compileNode(node.left);
      const right = compileNode(node.right);
      return (value, st) => {
        step(st);
        const l = orNull(left(value, st));
        return isFalse(l) ? l : right(value, st);
      };
    }
    case "Not": {
      const child = compileNode(node.child);
      return (value, st) => {
        step(st);
        return isFalse(orNull(child(value, st)));
      };
    }
    case "Pipe": {
      const left = compileNode(node.left);
      const right = compileNode(node.right);
      return (value, st) => {
        step(st);
        return orNull(right(orNull(left(value, st)), st));
      };
    }
    case "Function":
      return call(node.name, node.fn, node.args.map(compileNode));
    case "Index":
      return index(node.index);
    case "Slice": {
      const { start, stop, step: stride } = node;
      return (value, st) => {
        step(st);
        if (!Array.isArray(value)) return null;
        const out = sliceArray(value, start, stop, stride);
        st.charge(out.length);
        return out;
      };
    }
    case "Projection":
      return projection(compileNode(node.left), compileNode(node.right));
    case "FilterProjection":
      return filterProjection(quietly(compileNode(node.left)), compileNode(node.condition), compileNode(node.right));
    case "ValueProjection":
      return valueProjection(quietly(compileNode(node.left)), compileNode(node.right));
    case "Flatten":
      return flatten(quietly(compileNode(node.child)));
    case "MultiSelectList":
      return multiSelectList(node.children.map(compileNode));
    case "MultiSelectHash":
      return multiSelectHash(node.pairs.map((p) => ({ key: p.key, value: compileNode(p.value) })));
    case "ExpRef": {
      const child = compileNode(node.child);
      return (_value, st) => {
        step(st);
        return new ExprRef(child, st);
      };
    }
    case "Empty":
      return (_value, st) => {
        step(st);
        throw new JmesPathError("syntax", "Unknown AST node: ASTEmpty");
      };
  }
}

/**
 * A field of the current value: null on a non-map; MISSING when the map lacks the key, except on
 * an expression reference (null). A `guarded` name is looked up among own keys only.
 */
function field(name: string, guarded: boolean): Evaluator {
  return (value, st) => {
    step(st);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
    const x = (value as Record<string, JsonValue | undefined>)[name];
    if (x === undefined || (guarded && !Object.hasOwn(value, name))) {
      if (value instanceof ExprRef) return null;
      st.missingKey = name;
      return MISSING;
    }
    return x;
  };
}

/** An evaluator that never gives MISSING. */
type Quiet = (value: Value, st: EvalState) => Value;

/** The left side of `[]`, `[?...]` and `.*`: any error but a limit reads as null. */
function quietly(inner: Evaluator): Quiet {
  return (value, st) => {
    try {
      return orNull(inner(value, st));
    } catch (e) {
      if (isLimitError(e) || isInterruption(e)) throw e;
      return null;
    }
  };
}

function comparator(op: ComparatorOp, left: Evaluator, right: Evaluator): Evaluator {
  const compare = comparison(op);
  return (value, st) => {
    step(st);
    const a = orNull(left(value, st));
    return compare(a, orNull(right(value, st)));
  };
}

/** `==` and `!=` compare any values deeply; the orderings compare numbers and are null otherwise. */
function comparison(op: ComparatorOp): (a: Value, b: Value) => boolean | null {
  switch (op) {
    case "==":
      return (a, b) => deepEqual(a, b);
    case "!=":
      return (a, b) => !deepEqual(a, b);
    case "<":
      return (a, b) => (typeof a === "number" && typeof b === "number" ? a < b : null);
    case "<=":
      return (a, b) => (typeof a === "number" && typeof b === "number" ? a <= b : null);
    case ">":
      return (a, b) => (typeof a === "number" && typeof b === "number" ? a > b : null);
    case ">=":
      return (a, b) => (typeof a === "number" && typeof b === "number" ? a >= b : null);
  }
}

function call(name: string, fn: BoundFunction | undefined, args: readonly Evaluator[]): Evaluator {
  return (value, st) => {
    step(st);
    const values: FunctionArg[] = new Array<FunctionArg>(args.length);
    for (let i = 0; i < args.length; i++) values[i] = orNull((args[i] as Evaluator)(value, st));
    if (fn === undefined) throw new JmesPathError("unknown-function", `unknown function: ${name}`);
    checkArguments(fn, values);
    const result = (fn.def.call(values, st) ?? null) as Value;
    if (typeof result === "string" && result.length > st.maxStringLength) {
      throw limitError(`function ${name} returned a string longer than ${st.maxStringLength} characters`);
    }
    if (Array.isArray(result)) st.charge(result.length);
    return result;
  };
}

function index(at: number): Evaluator {
  return (value, st) => {
    step(st);
    if (!Array.isArray(value)) return null;
    const i = at < 0 ? at + value.length : at;
    return i >= 0 && i < value.length ? (value[i] as JsonValue) : null;
  };
}

/**
 * Result lists are made at their final size (or the most they can hold, then cut): a list grown by
 * push starts with room for 16 entries, and most projections here give one to three.
 */
function projection(left: Evaluator, right: Evaluator): Evaluator {
  return (value, st) => {
    step(st);
    const l = left(value, st);
    if (!Array.isArray(l)) return null;
    const out = new Array<JsonValue>(l.length);
    let k = 0;
    for (const el of l) {
      const r = right(el, st);
      if (r !== null && r !== MISSING) out[k++] = r as JsonValue;
    }
    if (k !== out.length) out.length = k;
    return out;
  };
}

function filterProjection(left: Quiet, condition: Evaluator, right: Evaluator): Evaluator {
  return (value, st) => {
    step(st);
    const l = left(value, st);
    if (!Array.isArray(l)) return null;
    const out: JsonValue[] = [];
    for (const el of l) {
      if (isFalse(orNull(condition(el, st)))) continue;
      const r = right(el, st);
      if (r !== null && r !== MISSING) out.push(r as JsonValue);
    }
    return out;
  };
}

function valueProjection(left: Quiet, right: Evaluator): Evaluator {
  return (value, st) => {
    step(st);
    const l = left(value, st);
    if (!isPlainObject(l)) return null;
    const out: JsonValue[] = [];
    for (const key in l) {
      const r = right(l[key] ?? null, st);
      if (r !== null && r !== MISSING) out.push(r as JsonValue);
    }
    return out;
  };
}

function flatten(child: Quiet): Evaluator {
  return (value, st) => {
    step(st);
    const l = child(value, st);
    if (!Array.isArray(l)) return null;
    let n = 0;
    for (const el of l) n += Array.isArray(el) ? el.length : 1;
    const out = new Array<JsonValue>(n);
    let k = 0;
    for (const el of l) {
      if (Array.isArray(el)) {
        st.charge(el.length);
        for (const x of el) out[k++] = x;
      } else {
        out[k++] = el;
      }
    }
    return out;
  };
}

function multiSelectList(children: readonly Evaluator[]): Evaluator {
  return (value, st) => {
    step(st);
    if (value === null) return null;
    const out: JsonValue[] = new Array<JsonValue>(children.length);
    for (let i = 0; i < children.length; i++) out[i] = orNull((children[i] as Evaluator)(value, st)) as JsonValue;
    return out;
  };
}

function multiSelectHash(pairs: readonly { readonly key: string; readonly value: Evaluator }[]): Evaluator {
  return (value, st) => {
    step(st);
    if (value === null) return null;
    const out: Record<string, JsonValue> = {};
    for (const pair of pairs) {
      const v = orNull(pair.value(value, st)) as JsonValue;
      if (pair.key === "__proto__")
        Object.defineProperty(out, pair.key, { value: v, writable: true, enumerable: true, configurable: true });
      else out[pair.key] = v;
    }
    return out;
  };
}
