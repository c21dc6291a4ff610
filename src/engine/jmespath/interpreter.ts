/**
 * The tree-walking interpreter: one switch over node kinds, with the semantics of Kyverno's
 * go-jmespath fork. A field access on a map that lacks the key yields MISSING (the fork's
 * NotFoundError). MISSING propagates through sub-expressions, index expressions and the right
 * side of `&&`, and becomes null in `||`, comparisons, `!`, pipes, function arguments,
 * multi-selects and projections. The left side of `[]`, `[?...]` and `.*` swallows every error.
 */
import type { JsonValue } from "../api/json.js";
import type { Node } from "./ast.js";
import { isLimitError, limitError } from "./errors.js";
import { EvalState, ExprRef, MISSING, type Outcome, type Value } from "./eval-state.js";
import { checkArguments } from "./function-call.js";
import { sliceArray } from "./slice.js";
import { JmesPathError, type FunctionArg } from "./types.js";
import { deepEqual, isFalse } from "./values.js";

function orNull(v: Outcome): Value {
  return v === MISSING ? null : v;
}

/** Evaluates `node`, turning any error except a limit into null (go-jmespath's `return nil, nil`). */
function evaluateQuietly(node: Node, value: Value, st: EvalState): Value {
  try {
    return orNull(evaluate(node, value, st));
  } catch (e) {
    if (isLimitError(e)) throw e;
    return null;
  }
}

function isPlainObject(v: Value): v is Record<string, JsonValue> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof ExprRef);
}

function callFunction(node: Extract<Node, { type: "Function" }>, value: Value, st: EvalState): Value {
  const args: FunctionArg[] = new Array<FunctionArg>(node.args.length);
  for (let i = 0; i < node.args.length; i++) {
    args[i] = orNull(evaluate(node.args[i] as Node, value, st));
  }
  const fn = node.fn;
  if (fn === undefined) throw new JmesPathError("unknown-function", `unknown function: ${node.name}`);
  checkArguments(fn, args);
  const result = (fn.def.call(args, st) ?? null) as Value;
  if (typeof result === "string" && result.length > st.maxStringLength) {
    throw limitError(`function ${node.name} returned a string longer than ${st.maxStringLength} characters`);
  }
  if (Array.isArray(result)) st.charge(result.length);
  return result;
}

export function evaluate(node: Node, value: Value, st: EvalState): Outcome {
  if (++st.steps > st.maxSteps) st.overBudget();
  switch (node.type) {
    case "Field": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
      const v = (value as Record<string, JsonValue | undefined>)[node.name];
      if (v === undefined || (node.guarded && !Object.hasOwn(value, node.name))) {
        if (value instanceof ExprRef) return null;
        st.missingKey = node.name;
        return MISSING;
      }
      return v;
    }
    case "Subexpression":
    case "IndexExpression": {
      const left = evaluate(node.left, value, st);
      if (left === MISSING) return MISSING;
      return evaluate(node.right, left, st);
    }
    case "Current":
    case "Identity":
      return value;
    case "Literal":
      return node.value;
    case "Comparator": {
      const a = orNull(evaluate(node.left, value, st));
      const b = orNull(evaluate(node.right, value, st));
      if (node.op === "==") return deepEqual(a, b);
      if (node.op === "!=") return !deepEqual(a, b);
      if (typeof a !== "number" || typeof b !== "number") return null;
      if (node.op === "<") return a < b;
      if (node.op === "<=") return a <= b;
      if (node.op === ">") return a > b;
      return a >= b;
    }
    case "Or": {
      const left = orNull(evaluate(node.left, value, st));
      return isFalse(left) ? orNull(evaluate(node.right, value, st)) : left;
    }
    case "And": {
      const left = orNull(evaluate(node.left, value, st));
      return isFalse(left) ? left : evaluate(node.right, value, st);
    }
    case "Not":
      return isFalse(orNull(evaluate(node.child, value, st)));
    case "Pipe":
      return orNull(evaluate(node.right, orNull(evaluate(node.left, value, st)), st));
    case "Function":
      return callFunction(node, value, st);
    case "Index": {
      if (!Array.isArray(value)) return null;
      const i = node.index < 0 ? node.index + value.length : node.index;
      return i >= 0 && i < value.length ? (value[i] as JsonValue) : null;
    }
    case "Slice": {
      if (!Array.isArray(value)) return null;
      const out = sliceArray(value, node.start, node.stop, node.step);
      st.charge(out.length);
      return out;
    }
    case "Projection": {
      const left = evaluate(node.left, value, st);
      if (!Array.isArray(left)) return null;
      const out: JsonValue[] = [];
      for (const el of left) {
        const r = evaluate(node.right, el, st);
        if (r !== null && r !== MISSING) out.push(r as JsonValue);
      }
      return out;
    }
    case "FilterProjection": {
      const left = evaluateQuietly(node.left, value, st);
      if (!Array.isArray(left)) return null;
      const out: JsonValue[] = [];
      for (const el of left) {
        if (isFalse(orNull(evaluate(node.condition, el, st)))) continue;
        const r = evaluate(node.right, el, st);
        if (r !== null && r !== MISSING) out.push(r as JsonValue);
      }
      return out;
    }
    case "ValueProjection": {
      const left = evaluateQuietly(node.left, value, st);
      if (!isPlainObject(left)) return null;
      const out: JsonValue[] = [];
      for (const key in left) {
        const r = evaluate(node.right, left[key] ?? null, st);
        if (r !== null && r !== MISSING) out.push(r as JsonValue);
      }
      return out;
    }
    case "Flatten": {
      const left = evaluateQuietly(node.child, value, st);
      if (!Array.isArray(left)) return null;
      const out: JsonValue[] = [];
      for (const el of left) {
        if (Array.isArray(el)) {
          st.charge(el.length);
          for (const x of el) out.push(x);
        } else {
          out.push(el);
        }
      }
      return out;
    }
    case "MultiSelectList": {
      if (value === null) return null;
      const out: JsonValue[] = new Array<JsonValue>(node.children.length);
      for (let i = 0; i < node.children.length; i++) {
        out[i] = orNull(evaluate(node.children[i] as Node, value, st)) as JsonValue;
      }
      return out;
    }
    case "MultiSelectHash": {
      if (value === null) return null;
      const out: Record<string, JsonValue> = {};
      for (const pair of node.pairs) {
        const v = orNull(evaluate(pair.value, value, st)) as JsonValue;
        if (pair.key === "__proto__") Object.defineProperty(out, pair.key, { value: v, writable: true, enumerable: true, configurable: true });
        else out[pair.key] = v;
      }
      return out;
    }
    case "ExpRef":
      return new ExprRef(node.child, st);
    case "Empty":
      throw new JmesPathError("syntax", "Unknown AST node: ASTEmpty");
  }
}
