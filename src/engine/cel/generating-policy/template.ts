/**
 * A GeneratingPolicy's `spec.generate[].template` (Kyverno 1.19): a YAML string of one or more
 * documents, each a resource to generate. With `interpolate: cel`, `(( … ))` placeholders are CEL
 * expressions over the same variables as `spec.generate[].expression` (template-scan.ts):
 * - a scalar that is one placeholder is replaced by the value, whatever its type (map, list, scalar);
 * - a placeholder within a longer string is written into it and must be a scalar;
 * - a mapping key may not hold one (use a whole-value placeholder on the parent field), and a
 *   subtree holding one may not use a YAML merge key.
 * Parsed and compiled once, when the policy is (an error names the line); rendered per trigger into
 * fresh objects. Without interpolation the documents are taken as written.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, type Document } from "yaml";
import type { JsonObject, JsonValue } from "../../api/json.js";
import { isObject } from "../../api/json.js";
import { cloneJson } from "../../api/json-copy.js";
import { setOwn } from "../../api/set-own.js";
import { goFormatFloat } from "../../go/format-value.js";
import { goQuote } from "../../go/quote.js";
import { UnsignedInt } from "@marcbachmann/cel-js/evaluator";
import { fromCel } from "../values.js";
import type { CelProgram } from "../types.js";
import { hasPlaceholder, needsScan, scanPlaceholders } from "./template-scan.js";

type Placeholder = { readonly expression: string; readonly program: CelProgram };

type TemplateNode =
  | { readonly kind: "literal"; readonly value: JsonValue }
  | { readonly kind: "map"; readonly entries: readonly (readonly [string, TemplateNode])[] }
  | { readonly kind: "list"; readonly items: readonly TemplateNode[] }
  | { readonly kind: "value"; readonly placeholder: Placeholder }
  | { readonly kind: "text"; readonly parts: readonly (string | Placeholder)[] };

export interface CompiledTemplate {
  readonly documents: readonly TemplateNode[];
}

/** Compiles one placeholder's expression, or says why it does not compile. */
type CompileExpression = (expression: string) => { ok: true; program: CelProgram } | { ok: false; message: string };

/** Evaluates one placeholder's program against the trigger's variables: the raw CEL value, or the error's text. */
export type EvaluatePlaceholder = (
  program: CelProgram,
) => { ok: true; value: unknown } | { ok: false; message: string };

/** Nodes compiled at most, aliases expanded: a template that repeats itself past this is refused. */
const MAX_NODES = 10_000;

class TemplateError extends Error {}

type YamlNode = NonNullable<Document["contents"]>;

/** The template compiled, or the message that says what is wrong (and on which line). */
export function compileTemplate(
  template: { readonly value: string; readonly interpolate: boolean },
  compile: CompileExpression,
): { ok: true; template: CompiledTemplate } | { ok: false; message: string } {
  const lines = new LineCounter();
  const docs = parseAllDocuments(template.value, { lineCounter: lines, merge: true, uniqueKeys: false });
  const documents: TemplateNode[] = [];
  let count = 0;
  const lineOf = (node: { range?: readonly number[] | null | undefined }): number =>
    lines.linePos(node.range?.[0] ?? 0).line;
  for (const doc of docs) {
    const problem = doc.errors[0];
    if (problem !== undefined) return { ok: false, message: `failed to parse YAML: ${problem.message}` };
    const root = doc.contents;
    if (root === null || (isScalar(root) && root.value === null)) continue;
    const compileNode = (node: YamlNode): TemplateNode => {
      if (++count > MAX_NODES) throw new TemplateError(`the template expands to more than ${MAX_NODES} nodes`);
      const n = isAlias(node) ? (node.resolve(doc) as YamlNode | undefined) : node;
      if (n === undefined) throw new TemplateError(`line ${lineOf(node)}: unresolved alias`);
      if (!template.interpolate || !holdsPlaceholder(n, doc)) return { kind: "literal", value: literal(n, doc) };
      if (isMap(n)) {
        const entries: (readonly [string, TemplateNode])[] = [];
        for (const pair of n.items) {
          const key = pair.key;
          if (!isScalar(key)) throw new TemplateError(`line ${lineOf(n)}: only scalar mapping keys are supported`);
          const name = String(key.value);
          if (hasPlaceholder(name))
            throw new TemplateError(
              `line ${lineOf(key)}: placeholders are not supported in mapping keys; use a whole-value placeholder on the parent field instead (e.g. \`labels: (( variables.labels ))\`)`,
            );
          if (name === "<<")
            throw new TemplateError(
              `line ${lineOf(key)}: YAML merge keys are not supported in subtrees containing placeholders`,
            );
          const value = pair.value as YamlNode | null;
          entries.push([name, value === null ? { kind: "literal", value: null } : compileNode(value)]);
        }
        return { kind: "map", entries };
      }
      if (isSeq(n)) return { kind: "list", items: n.items.map((item) => compileNode(item as YamlNode)) };
      if (isScalar(n)) return compileScalar(String(n.value), lineOf(n), compile);
      throw new TemplateError(`line ${lineOf(n)}: unsupported YAML node kind`);
    };
    let compiled: TemplateNode;
    try {
      compiled = compileNode(root);
    } catch (e) {
      if (e instanceof TemplateError) return { ok: false, message: e.message };
      throw e;
    }
    const isResource =
      compiled.kind === "map" || compiled.kind === "value" || (compiled.kind === "literal" && isObject(compiled.value));
    if (!isResource)
      return { ok: false, message: `line ${lineOf(root)}: document must be a mapping describing a resource` };
    documents.push(compiled);
  }
  return documents.length === 0 ? noDocuments() : { ok: true, template: { documents } };
}

function noDocuments(): { ok: false; message: string } {
  return { ok: false, message: "template must contain at least one YAML document" };
}

/** Whether a subtree holds a placeholder or an escape (then it is compiled node by node). */
function holdsPlaceholder(node: YamlNode, doc: Document, seen = new Set<unknown>()): boolean {
  if (seen.has(node)) return false;
  seen.add(node);
  if (isAlias(node)) {
    const target = node.resolve(doc) as YamlNode | undefined;
    return target !== undefined && holdsPlaceholder(target, doc, seen);
  }
  if (isScalar(node)) return typeof node.value === "string" && needsScan(node.value);
  if (isMap(node))
    return node.items.some(
      (p) =>
        isPair(p) &&
        ((p.key !== null && holdsPlaceholder(p.key as YamlNode, doc, seen)) ||
          (p.value !== null && holdsPlaceholder(p.value as YamlNode, doc, seen))),
    );
  if (isSeq(node)) return node.items.some((item) => holdsPlaceholder(item as YamlNode, doc, seen));
  return false;
}

/** A subtree without placeholders as JSON: mapping keys as strings, as a resource holds them. */
function literal(node: YamlNode, doc: Document): JsonValue {
  try {
    return asJson(node.toJS(doc, { maxAliasCount: 100 }) as unknown);
  } catch (e) {
    // The yaml package refuses aliases that expand past the count (a resource exhaustion attack).
    throw new TemplateError(`failed to parse YAML: ${(e as Error).message}`);
  }
}

function asJson(v: unknown): JsonValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "number" || typeof v === "string" || typeof v === "boolean") return v;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(asJson);
  if (v instanceof Map) {
    const out: JsonObject = {};
    for (const [k, item] of v) setOwn(out, String(k), asJson(item));
    return out;
  }
  if (v instanceof Set) return [...v].map(asJson);
  if (typeof v === "object") {
    const out: JsonObject = {};
    for (const [k, item] of Object.entries(v)) setOwn(out, k, asJson(item));
    return out;
  }
  return null;
}

function compileScalar(s: string, line: number, compile: CompileExpression): TemplateNode {
  const scanned = scanPlaceholders(s);
  if (!scanned.ok) throw new TemplateError(`line ${line}: ${scanned.message}`);
  const parts: (string | Placeholder)[] = [];
  for (const part of scanned.parts) {
    if ("text" in part) {
      parts.push(part.text);
      continue;
    }
    const r = compile(part.expression);
    if (!r.ok)
      throw new TemplateError(`line ${line}: invalid placeholder expression ${goQuote(part.expression)}: ${r.message}`);
    parts.push({ expression: part.expression, program: r.program });
  }
  if (parts.every((p) => typeof p === "string")) return { kind: "literal", value: parts.join("") };
  const [only] = parts;
  if (parts.length === 1 && only !== undefined && typeof only !== "string") return { kind: "value", placeholder: only };
  return { kind: "text", parts };
}

/** One object per document, rendered afresh, or the message naming the document, field and placeholder. */
export function renderTemplate(
  template: CompiledTemplate,
  evaluate: EvaluatePlaceholder,
): { ok: true; resources: JsonObject[] } | { ok: false; message: string } {
  const resources: JsonObject[] = [];
  for (const [i, doc] of template.documents.entries()) {
    const r = render(doc, evaluate);
    if (!r.ok) return { ok: false, message: `document ${i + 1}: ${r.message}` };
    if (!isObject(r.value))
      return {
        ok: false,
        message: `document ${i + 1}: expected a mapping describing a resource, got ${goTypeName(r.value)}`,
      };
    resources.push(r.value);
  }
  return { ok: true, resources };
}

type Rendered = { ok: true; value: JsonValue } | { ok: false; message: string };

function render(node: TemplateNode, evaluate: EvaluatePlaceholder): Rendered {
  switch (node.kind) {
    case "literal":
      return { ok: true, value: cloneJson(node.value) };
    case "map": {
      const out: JsonObject = {};
      for (const [key, value] of node.entries) {
        const r = render(value, evaluate);
        if (!r.ok) return { ok: false, message: `field ${goQuote(key)}: ${r.message}` };
        setOwn(out, key, r.value);
      }
      return { ok: true, value: out };
    }
    case "list": {
      const out: JsonValue[] = [];
      for (const [i, item] of node.items.entries()) {
        const r = render(item, evaluate);
        if (!r.ok) return { ok: false, message: `item ${i}: ${r.message}` };
        out.push(r.value);
      }
      return { ok: true, value: out };
    }
    case "value":
      return valueOf(node.placeholder, evaluate);
    case "text": {
      let text = "";
      for (const part of node.parts) {
        if (typeof part === "string") {
          text += part;
          continue;
        }
        const r = evaluate(part.program);
        if (!r.ok) return failed(part, r.message);
        const scalar = scalarText(r.value);
        if (scalar === undefined)
          return {
            ok: false,
            message: `placeholder ${goQuote(part.expression)} embedded in a string must evaluate to a scalar, got ${goTypeName(fromCel(r.value))}; use a whole-value placeholder for structured results`,
          };
        if (!scalar.ok)
          return {
            ok: false,
            message: `failed to convert placeholder ${goQuote(part.expression)} result: ${scalar.message}`,
          };
        text += scalar.text;
      }
      return { ok: true, value: text };
    }
  }
}

function failed(p: Placeholder, message: string): Rendered {
  return { ok: false, message: `failed to evaluate placeholder ${goQuote(p.expression)}: ${message}` };
}

function valueOf(p: Placeholder, evaluate: EvaluatePlaceholder): Rendered {
  const r = evaluate(p.program);
  if (!r.ok) return failed(p, r.message);
  if (r.value instanceof UnsignedInt && r.value.value > INT64_MAX)
    return {
      ok: false,
      message: `failed to convert placeholder ${goQuote(p.expression)} result: ${overflow(r.value.value)}`,
    };
  return { ok: true, value: fromCel(r.value) };
}

const INT64_MAX = (1n << 63n) - 1n;

function overflow(v: bigint): string {
  return `uint value ${v.toString()} overflows the supported integer range`;
}

/** A scalar's text as Go's `%v` writes it; undefined for a map, a list or null; an error for a uint past int64. */
function scalarText(v: unknown): { ok: true; text: string } | { ok: false; message: string } | undefined {
  if (typeof v === "string") return { ok: true, text: v };
  if (typeof v === "boolean") return { ok: true, text: String(v) };
  if (typeof v === "bigint") return { ok: true, text: v.toString() };
  if (typeof v === "number") return { ok: true, text: goFormatFloat(v) };
  if (v instanceof UnsignedInt)
    return v.value > INT64_MAX ? { ok: false, message: overflow(v.value) } : { ok: true, text: v.value.toString() };
  return undefined;
}

/** Go's `%T` of a decoded value, as Kyverno's messages name it. */
function goTypeName(v: JsonValue): string {
  if (v === null) return "<nil>";
  if (Array.isArray(v)) return "[]interface {}";
  if (typeof v === "object") return "map[string]interface {}";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  return Number.isInteger(v) ? "int64" : "float64";
}
