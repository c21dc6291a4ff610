/**
 * The type names of a mutation's object constructors checked against where they sit, as Kubernetes
 * checks an evaluated ApplyConfiguration (and a JSONPatch `value`) before it patches: a constructor
 * that is the value of field `f` of a constructor whose path is `P` must be named `P.f`
 * (`Object{spec: Object.spec{template: Object.spec.template{…}}}`); lists and maps in between are
 * transparent; the root names its own path. A wrong name is an evaluation error in Kyverno ("type
 * mismatch: unexpected type name "Object.metadata", expected "Object.spec.template.metadata", which
 * matches field name path from root Object type"); the autogen copies of a MutatingPolicy whose
 * constructor names `Object.metadata` below the wrapper it adds give it for every pod controller.
 *
 * Bylaw's objects carry no type name once built (struct-literals.ts writes them as maps), so the
 * check reads the text: it follows constructors written directly as a field's, a list element's or
 * a map value's value, and leaves a constructor under anything else (a condition, a call, a
 * variable) unchecked, where the place it lands is only known at run time.
 */
import { CONSTRUCTOR, FIELD, IDENT_CHAR, stringEnd } from "./struct-literals.js";

interface Frame {
  readonly open: "struct" | "{" | "(" | "[";
  /** A constructor's path (what its fields' constructors extend), undefined when unknown. */
  readonly path: string | undefined;
  /** `JSONPatch{…}`: its `value` field's constructor is a root of its own. */
  readonly patch: boolean;
  /** The path a constructor written directly at the current value position must have (struct: per field). */
  expected: string | undefined;
  /** Map literal: whether the key's `:` has been read (the value position). */
  inValue: boolean;
}

const CLOSERS: Readonly<Record<string, Frame["open"]>> = { "}": "{", ")": "(", "]": "[" };
const ROOT_PATH = "\u0000root";

/** Kubernetes' errors for the expression's constructors whose type name does not match their field path, in written order. */
export function typeNameMismatches(expression: string): string[] {
  if (!/(Object|JSONPatch)\s*(\.|\{)/.test(expression)) return [];
  const errors: string[] = [];
  const stack: Frame[] = [];
  // The path a constructor at the current position must have: ROOT_PATH at the expression's start.
  let direct: string | undefined = ROOT_PATH;
  let i = 0;
  const top = (): Frame | undefined => stack[stack.length - 1];
  while (i < expression.length) {
    const ch = expression[i] ?? "";
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '"' || ch === "'") {
      i = stringEnd(expression, i);
      direct = undefined;
      continue;
    }
    const before = i === 0 ? "" : (expression[i - 1] ?? "");
    const ctor = IDENT_CHAR.test(before) ? null : CONSTRUCTOR.exec(expression.slice(i));
    if (ctor !== null) {
      stack.push(constructorFrame(ctor[0].replace(/\s/g, "").slice(0, -1), direct, errors));
      i += ctor[0].length;
      direct = undefined;
      i = fieldAt(expression, i, top(), (value) => (direct = value));
      continue;
    }
    const frame = top();
    if (ch === "{" || ch === "[" || ch === "(") {
      // A list or map written directly where a constructor could be passes its expected path on.
      stack.push({
        open: ch,
        path: undefined,
        patch: false,
        expected: ch === "(" ? undefined : direct,
        inValue: false,
      });
      direct = ch === "[" ? direct : undefined;
      i++;
      continue;
    }
    if (ch in CLOSERS) stack.pop();
    direct = undefined;
    i++;
    if (ch === "," && frame !== undefined) {
      if (frame.open === "struct") i = fieldAt(expression, i, frame, (value) => (direct = value));
      else if (frame.open === "[") direct = frame.expected;
      else if (frame.open === "{") frame.inValue = false;
    } else if (ch === ":" && frame?.open === "{" && !frame.inValue) {
      frame.inValue = true;
      direct = frame.expected;
    }
  }
  return errors;
}

/** The frame of a constructor named `name` where a constructor must be named `direct` (ROOT_PATH: its own name; undefined: unknown). */
function constructorFrame(name: string, direct: string | undefined, errors: string[]): Frame {
  if (direct !== undefined && direct !== ROOT_PATH && name !== direct)
    errors.push(
      `unexpected type name ${JSON.stringify(name)}, expected ${JSON.stringify(direct)}, which matches field name path from root Object type`,
    );
  const path = direct === ROOT_PATH ? name : direct;
  return { open: "struct", path, patch: name === "JSONPatch", expected: undefined, inValue: false };
}

/** Reads `name:` at a struct's field position; tells the path its value's constructor must have. Returns the index after it. */
function fieldAt(
  expression: string,
  at: number,
  frame: Frame | undefined,
  set: (value: string | undefined) => void,
): number {
  const field = FIELD.exec(expression.slice(at));
  if (field === null || frame === undefined) return at;
  const name = field[2] ?? "";
  if (frame.patch) set(name === "value" ? ROOT_PATH : undefined);
  else set(frame.path === undefined ? undefined : `${frame.path}.${name}`);
  return at + field[0].length;
}
