import { cloneJson, isObject, type JsonObject, type JsonValue, setOwn } from "../../engine/index.js";
import { AliasBudget } from "./alias-budget.js";
import { keyFromScalar, keyFromValue } from "./map-key.js";
import { expandTag, MERGE_TAG, resolvePlain, resolveTagged, type GoScalar } from "./resolve-scalar.js";

/** A problem in one document, at an offset in the text the builder was fed from. */
export class BuildError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

interface Frame {
  readonly value: JsonObject | JsonValue[];
  readonly isMap: boolean;
  readonly anchor: string | undefined;
  readonly startCount: number;
  readonly offset: number;
  /** Map only: the key waiting for its value, or undefined while a key is expected. */
  key: string | undefined;
  /** Map only: the pending value is a `<<` merge. */
  merge: boolean;
}

interface Anchored {
  readonly value: JsonValue;
  readonly size: number;
}

/**
 * Builds one document's JSON value from a stream of YAML nodes, with the semantics Kubernetes
 * gets from sigs.k8s.io/yaml over go-yaml v2:
 * - plain scalars resolve YAML 1.1-style (see resolve-scalar.ts); timestamps stay strings;
 * - keys become strings (map-key.ts); a repeated key takes the last value;
 * - `<<` merges apply in order, as go-yaml v2 does: a merged key overwrites one written before
 *   the `<<`, keys after it overwrite merged ones, and in `<<: [a, b]` the earlier map wins;
 * - aliases expand into deep copies, within an AliasBudget;
 * - NaN and infinities are rejected, as JSON cannot hold them.
 * Any YAML parser front end can drive it (see js-yaml-events.ts).
 */
export class ValueBuilder {
  private readonly stack: Frame[] = [];
  private readonly anchors = new Map<string, Anchored>();
  private readonly budget: AliasBudget;
  private root: JsonValue | undefined;

  constructor(maxAliasNodes: number) {
    this.budget = new AliasBudget(maxAliasNodes);
  }

  /** The document's value; undefined when the document had no node. */
  result(): JsonValue | undefined {
    return this.root;
  }

  startMapping(anchor: string | undefined, offset: number): void {
    this.openCollection({}, true, anchor, offset);
  }

  startSequence(anchor: string | undefined, offset: number): void {
    this.openCollection([], false, anchor, offset);
  }

  /** Close the innermost mapping or sequence. */
  end(): void {
    const frame = this.stack.pop();
    if (frame === undefined) throw new BuildError("unbalanced end of collection", 0);
    if (frame.anchor !== undefined) {
      this.anchors.set(frame.anchor, { value: frame.value, size: this.budget.count - frame.startCount });
    }
    this.place(frame.value, frame.offset);
  }

  scalar(text: string, plain: boolean, tag: string | undefined, anchor: string | undefined, offset: number): void {
    const top = this.stack[this.stack.length - 1];
    const expanded = tag === undefined ? undefined : expandTag(tag);
    if (top !== undefined && top.isMap && top.key === undefined) {
      if ((plain && expanded === undefined && text === "<<") || expanded === MERGE_TAG) {
        top.merge = true;
        top.key = "<<";
        return;
      }
      this.budget.countNode();
      const scalar = this.resolve(text, plain, expanded, offset);
      const key = keyFromScalar(scalar);
      if (!key.ok) throw new BuildError(key.message, offset);
      if (anchor !== undefined) this.anchors.set(anchor, { value: scalar.value, size: 1 });
      top.key = key.key;
      return;
    }
    this.budget.countNode();
    const value =
      plain && expanded === undefined && isPlainString(text) ? text : this.resolve(text, plain, expanded, offset).value;
    if (anchor !== undefined) this.anchors.set(anchor, { value, size: 1 });
    this.place(value, offset);
  }

  alias(name: string, offset: number): void {
    this.budget.countNode();
    if (this.stack.some((frame) => frame.anchor === name)) {
      throw new BuildError(`anchor '${name}' value contains itself`, offset);
    }
    const anchored = this.anchors.get(name);
    if (anchored === undefined) throw new BuildError(`unknown anchor '${name}' referenced`, offset);
    const problem = this.budget.expand(anchored.size);
    if (problem !== undefined) throw new BuildError(problem, offset);
    const top = this.stack[this.stack.length - 1];
    if (top !== undefined && top.isMap && top.key === undefined) {
      const key = keyFromValue(anchored.value);
      if (!key.ok) throw new BuildError(key.message, offset);
      top.key = key.key;
      return;
    }
    this.place(cloneJson(anchored.value), offset);
  }

  private openCollection(
    value: JsonObject | JsonValue[],
    isMap: boolean,
    anchor: string | undefined,
    offset: number,
  ): void {
    const top = this.stack[this.stack.length - 1];
    if (top !== undefined && top.isMap && top.key === undefined) {
      throw new BuildError(`unsupported map key: a ${isMap ? "mapping" : "sequence"}`, offset);
    }
    const startCount = this.budget.count;
    this.budget.countNode();
    this.stack.push({ value, isMap, anchor, startCount, offset, key: undefined, merge: false });
  }

  private resolve(text: string, plain: boolean, tag: string | undefined, offset: number): GoScalar {
    if (tag !== undefined) {
      const tagged = resolveTagged(text, tag);
      if (!tagged.ok) throw new BuildError(tagged.message, offset);
      return tagged.scalar;
    }
    return plain ? resolvePlain(text) : { kind: "str", value: text };
  }

  /** Put a finished value where the innermost open collection expects it. */
  private place(value: JsonValue, offset: number): void {
    if (typeof value === "number" && !Number.isFinite(value)) {
      throw new BuildError(`unsupported value ${String(value)}: JSON has no NaN or infinities`, offset);
    }
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) {
      this.root = value;
    } else if (!top.isMap) {
      (top.value as JsonValue[]).push(value);
    } else {
      const target = top.value as JsonObject;
      if (top.merge) mergeInto(target, value, offset);
      else setOwn(target, top.key as string, value);
      top.key = undefined;
      top.merge = false;
    }
  }
}

/** ASCII first characters after which go-yaml v2 resolves a plain scalar to a string, always. */
const STRING_START = (() => {
  const table = new Uint8Array(128).fill(1);
  for (const ch of "0123456789+-.yYnNtTfFoO~") table[ch.charCodeAt(0)] = 0;
  return table;
})();

/** A plain scalar that no YAML 1.1 rule turns into anything but a string (the common case). */
function isPlainString(text: string): boolean {
  if (text.length === 0) return false;
  const c = text.charCodeAt(0);
  return c >= 128 || STRING_START[c] === 1;
}

function mergeInto(target: JsonObject, value: JsonValue, offset: number): void {
  if (isObject(value)) {
    copyKeys(target, value);
    return;
  }
  if (Array.isArray(value) && value.every(isObject)) {
    for (let i = value.length - 1; i >= 0; i--) copyKeys(target, value[i] as JsonObject);
    return;
  }
  throw new BuildError("map merge requires map or sequence of maps as the value", offset);
}

function copyKeys(target: JsonObject, source: JsonObject): void {
  for (const key of Object.keys(source)) setOwn(target, key, source[key] as JsonValue);
}
