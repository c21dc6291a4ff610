/**
 * The CEL environment as Kyverno 1.19 builds it (pkg/cel/compiler DefaultEnvOptions), on cel-js
 * (ADR 0010): optional types, heterogeneous numeric comparison, cel.bind, the libraries in
 * libraries/, RE2 regular expressions, Kyverno's orValue compatibility, and a runtime cost limit.
 * Compile once (parse, check, instrument); evaluate many times.
 */
import { Environment, Optional } from "@marcbachmann/cel-js";
import { ok, type Result } from "../api/result.js";
import { allNodes, isCelNode, type CelNode } from "./ast-nodes.js";
import { CostExceeded, CostMeter, meterProgram } from "./cost.js";
import { MAX_BUILT_BYTES, SIZE_LIMIT_MESSAGE, ValueTooLarge } from "./value-size.js";
import { hasOnAnyExpression } from "./has-macro.js";
import { ProgramMemo } from "./program-memo.js";
import { asCelJsError, celGoRuntimeText, celGoText, compileError, errorOffset } from "./errors.js";
import { isInterruption } from "../interrupt/index.js";
import { celGoLogicalErrors } from "./logical-errors.js";
import { defaultLibraries, RE2_MATCHES } from "./libraries/index.js";
import type { CelLibrary } from "./library.js";
import {
  generatorLibrary,
  envoyAuthzLibrary,
  httpAuthzLibrary,
  imageVerifyLibrary,
  kyvernoLibraries,
  newServiceSlot,
  type CelServices,
  type ServiceSlot,
} from "./kyverno/index.js";
import {
  BUDGET_EXCEEDED_MESSAGE,
  COST_LIMIT_MESSAGE,
  PER_CALL_COST_LIMIT,
  type CelActivation,
  type CelCompileError,
  type CelCompileOptions,
  type CelEngine,
  type CelEvalError,
  type CelProgram,
  type CelVariableDecl,
  type CostBudget,
} from "./types.js";

/** The variables of a Kyverno validate.cel rule and of the policies.kyverno.io kinds. */
const KYVERNO_VARIABLES: readonly CelVariableDecl[] = [
  { name: "object", type: "dyn" },
  { name: "oldObject", type: "dyn" },
  { name: "params", type: "dyn" },
  { name: "namespaceObject", type: "dyn" },
  { name: "request", type: "map<string, dyn>" },
  { name: "variables", type: "map<string, dyn>" },
];

/**
 * The policies.kyverno.io kinds also read `exceptions` (Kyverno's libs.Exception): the images and
 * values of the partial PolicyExceptions that matched the request.
 */
const EXCEPTIONS_VARIABLE: CelVariableDecl = { name: "exceptions", type: "map<string, list<string>>" };
const EXCEPTIONS_FIELDS: readonly string[] = ["allowedImages", "allowedValues"];

interface CreateCelOptions {
  readonly variables?: readonly CelVariableDecl[];
  readonly libraries?: readonly CelLibrary[];
  readonly perCallCostLimit?: number;
  /**
   * Kyverno's own libraries (resource, http, image, json, time, …) as the policies.kyverno.io kinds
   * have them: "cluster" for a cluster-wide policy, "namespaced" for a Namespaced* kind (whose
   * `resource.Get/List` read its own namespace). Absent: Kubernetes' environment alone.
   */
  readonly kyverno?: "cluster" | "namespaced";
  /** The GeneratingPolicy environment: Kyverno's libraries and `generator` (kyverno/generator.ts). */
  readonly generator?: boolean;
  /** The ImageValidatingPolicy environment: the image verification functions and `images`, `attestors`, `attestations`. */
  readonly imageVerify?: boolean;
  /** An HTTP-mode ValidatingPolicy's environment: kyverno-authz's HTTP library (kyverno/http-authz.ts). */
  readonly httpAuthz?: boolean;
  /** An Envoy-mode ValidatingPolicy's environment: kyverno-authz's Envoy library (kyverno/envoy-authz.ts). */
  readonly envoyAuthz?: boolean;
}

/** The variables an ImageValidatingPolicy's expressions also read (Kyverno's compiler keys). */
const IMAGE_VERIFY_VARIABLES: readonly CelVariableDecl[] = [
  { name: "images", type: "map<string, list<string>>" },
  { name: "attestors", type: "map<string, dyn>" },
  { name: "attestations", type: "map<string, dyn>" },
];

export function createCel(options: CreateCelOptions = {}): CelEngine {
  const env = new Environment({
    enableOptionalTypes: true,
    // cel-go accepts [dyn, int] under HomogeneousAggregateLiterals; cel-js does not (ADR 0010).
    homogeneousAggregateLiterals: false,
    unlistedVariablesAreDyn: false,
    limits: {
      maxAstNodes: 20_000,
      maxDepth: 250,
      maxListElements: 10_000,
      maxMapEntries: 10_000,
      maxCallArguments: 32,
    },
  });
  const slot = newServiceSlot();
  const libraries = [
    ...(options.libraries ?? defaultLibraries()),
    ...(options.kyverno === undefined ? [] : kyvernoLibraries(slot, options.kyverno === "namespaced")),
    ...(options.generator === true ? [generatorLibrary(slot)] : []),
    ...(options.imageVerify === true ? [imageVerifyLibrary(slot)] : []),
    ...(options.httpAuthz === true ? [httpAuthzLibrary()] : []),
    ...(options.envoyAuthz === true ? [envoyAuthzLibrary()] : []),
  ];
  for (const lib of libraries) {
    for (const t of lib.types ?? [])
      env.registerType(t.name, (t.fields === undefined ? t.ctor : { ctor: t.ctor, fields: t.fields }) as never);
    for (const c of lib.constants ?? []) env.registerConstant(c.name, c.type, c.value);
    for (const f of lib.functions) env.registerFunction(f.signature, f.handler as never);
    for (const o of lib.operators ?? []) env.registerOperator(o.signature, o.handler as never);
  }
  // The policies.kyverno.io kinds have no `params` (Kyverno 1.19 declares it for none of them): an expression reading it does not compile.
  const variables = [
    ...(options.variables ??
      (options.kyverno === undefined
        ? KYVERNO_VARIABLES
        : [...KYVERNO_VARIABLES.filter((v) => v.name !== "params"), EXCEPTIONS_VARIABLE])),
    ...(options.imageVerify === true ? IMAGE_VERIFY_VARIABLES : []),
  ];
  for (const v of variables) env.registerVariable(v.name, v.type);
  const readsExceptions = variables.some((v) => v.name === EXCEPTIONS_VARIABLE.name);
  const signatures = env.getDefinitions().functions.map((f) => f.signature);
  const declared = new Set(signatures.map((s) => /([A-Za-z_]\w*)\(/.exec(s.replace(/\(.*$/, "("))?.[1] ?? ""));
  const perCall = options.perCallCostLimit ?? PER_CALL_COST_LIMIT;
  const memo = new ProgramMemo();

  return {
    functionSignatures: () =>
      signatures
        .filter((s) => !s.includes(RE2_MATCHES) && !/^type\(.*Namespace\)/.test(s))
        .map((s) => readable(s, libraries)),
    compile(expression: string, opts: CelCompileOptions = {}): Result<CelProgram, CelCompileError> {
      return memo.get(expression, opts, () => compileNew(expression, opts));
    },
  };

  function compileNew(expression: string, opts: CelCompileOptions): Result<CelProgram, CelCompileError> {
    const fail = (e: unknown): { ok: false; error: CelCompileError } => {
      const ce = asCelJsError(e);
      const text = celGoText(ce, (n) => declared.has(n)).replaceAll(RE2_MATCHES, "matches");
      return { ok: false, error: compileError(expression, errorOffset(ce), text) };
    };
    let parsed: ReturnType<Environment["parse"]>;
    try {
      parsed = env.parse(expression);
    } catch (e) {
      return fail(e);
    }
    const root = parsed.ast as unknown as CelNode;
    const nodes = allNodes(root);
    useRe2(nodes);
    hasOnAnyExpression(nodes);
    const undefinedFields = [
      ...checkFields(expression, nodes, "request", ADMISSION_REQUEST_FIELDS),
      ...(opts.variableNames ? checkFields(expression, nodes, "variables", opts.variableNames) : []),
      ...(readsExceptions ? checkFields(expression, nodes, "exceptions", EXCEPTIONS_FIELDS) : []),
    ].sort((a, b) => a.pos - b.pos);
    const first = undefinedFields[0];
    if (first !== undefined) {
      // cel-go reports each, in the order of the expression.
      const errors = undefinedFields.map((u) => compileError(expression, u.pos, u.text));
      return {
        ok: false,
        error: { ...compileError(expression, first.pos, first.text), message: errors.map((e) => e.message).join("\n") },
      };
    }
    const checked = parsed.check();
    if (!checked.valid) return fail(checked.error);
    const outputType = checked.type ?? "dyn";
    if (opts.expectType !== undefined && outputType !== opts.expectType && outputType !== "dyn") {
      return {
        ok: false,
        error: compileError(expression, 0, `output is expected to be of type ${opts.expectType}, got ${outputType}`),
      };
    }
    celGoLogicalErrors(allNodes(root));
    const meter = new CostMeter();
    meterProgram(root, meter);
    orValueCompat(allNodes(root));
    return ok(program(expression, outputType, { run: parsed, meter, perCall, slot }));
  }
}

/** How a compiled expression runs: the parsed program, its cost meter, the per-call cost limit and the services slot. */
interface ProgramParts {
  readonly run: (ctx: CelActivation) => unknown;
  readonly meter: CostMeter;
  readonly perCall: number;
  readonly slot: ServiceSlot;
}

function program(expression: string, outputType: string, parts: ProgramParts): CelProgram {
  const { run, meter, perCall, slot } = parts;
  return {
    expression,
    outputType,
    evaluate(activation: CelActivation, budget?: CostBudget, services?: CelServices): Result<unknown, CelEvalError> {
      const limit = budget === undefined ? perCall : Math.min(perCall, budget.remaining);
      meter.reset(limit, budget !== undefined && budget.remaining < perCall, MAX_BUILT_BYTES - (budget?.built ?? 0));
      let value: unknown;
      let failure: unknown;
      const outer = slot.current;
      if (services !== undefined) slot.current = services;
      try {
        value = run(activation);
      } catch (e) {
        // The caller's Interruption is not an expression error: it stops the whole call.
        if (isInterruption(e)) throw e;
        failure = e;
      } finally {
        slot.current = outer;
      }
      if (budget !== undefined) {
        budget.remaining -= Math.min(meter.used, limit);
        budget.built = (budget.built ?? 0) + meter.built;
      }
      return outcome(value, failure, meter);
    },
  };
}

/** An evaluation's result: the cost or size limit first (cel-js absorbs some errors), then an error, then the value. */
function outcome(value: unknown, failure: unknown, meter: CostMeter): Result<unknown, CelEvalError> {
  const exceeded = meter.exceeded ?? (failure instanceof CostExceeded ? failure : undefined);
  if (exceeded !== undefined) return { ok: false, error: { kind: "cel-cost", message: costText(exceeded) } };
  if (failure !== undefined) {
    if (failure instanceof ValueTooLarge || causedBy(failure, ValueTooLarge))
      return { ok: false, error: { kind: "cel-cost", message: SIZE_LIMIT_MESSAGE } };
    return { ok: false, error: { kind: "cel-eval", message: evalText(failure) } };
  }
  if (value instanceof Promise)
    return { ok: false, error: { kind: "cel-eval", message: "an asynchronous function was called" } };
  return ok(value);
}

function costText(exceeded: CostExceeded): string {
  if (exceeded.sizeExceeded) return SIZE_LIMIT_MESSAGE;
  return exceeded.budgetExhausted ? BUDGET_EXCEEDED_MESSAGE : COST_LIMIT_MESSAGE;
}

/** Whether cel-js wrapped an error of class `type` (a function's error is the `cause` of cel-js's). */
function causedBy(e: unknown, type: new () => Error): boolean {
  let c: unknown = e;
  while (c instanceof Error) {
    if (c instanceof type) return true;
    c = (c as { cause?: unknown }).cause;
  }
  return false;
}

function evalText(e: unknown): string {
  const ce = asCelJsError(e);
  const summary = (ce.summary ?? ce.message ?? String(e)).split("\n")[0] ?? "";
  const matches = summary.replaceAll(RE2_MATCHES, "matches");
  return celGoRuntimeText(ce.code === undefined ? { summary: matches } : { code: ce.code, summary: matches });
}

/** `matches` runs RE2 (re2js) rather than cel-js's built-in JavaScript RegExp. */
function useRe2(nodes: readonly CelNode[]): void {
  for (const n of nodes) {
    if ((n.op === "rcall" || n.op === "call") && Array.isArray(n.args) && n.args[0] === "matches")
      n.args[0] = RE2_MATCHES;
  }
}

/**
 * Kyverno's OrValueCompat: `x.orValue(d)` on a value that is not an optional gives the value
 * (cel-go v0.27 behaviour Kyverno keeps). An error in `x` stays an error: Kyverno's compat
 * function is strict, so cel-go never calls it with an error argument.
 */
function orValueCompat(nodes: readonly CelNode[]): void {
  for (const n of nodes) {
    if (n.op !== "rcall" || !Array.isArray(n.args) || n.args[0] !== "orValue") continue;
    const receiver = n.meta.macro?.receiver;
    if (receiver === undefined || !isCelNode(receiver)) continue;
    const run = receiver.evaluate;
    receiver.evaluate = function (ev, ast, ctx) {
      const v = run.call(this, ev, ast, ctx);
      return v instanceof Optional ? v : Optional.of(v);
    };
  }
}

/** The fields of Kubernetes' CEL `request` (kubernetes.AdmissionRequest). */
export const ADMISSION_REQUEST_FIELDS: readonly string[] = [
  "kind",
  "resource",
  "subResource",
  "requestKind",
  "requestResource",
  "requestSubResource",
  "name",
  "namespace",
  "operation",
  "userInfo",
  "dryRun",
  "options",
];

/**
 * `variables.x` must name a declared variable and `request.x` a field of the AdmissionRequest, as
 * Kubernetes' typed `variables` and `request` check at compile time.
 */
function checkFields(
  expression: string,
  nodes: readonly CelNode[],
  variable: string,
  names: readonly string[],
): { pos: number; text: string }[] {
  const known = new Set(names);
  const out: { pos: number; text: string }[] = [];
  for (const n of nodes) {
    if ((n.op !== "." && n.op !== ".?") || !Array.isArray(n.args)) continue;
    const [target, field] = n.args as [unknown, unknown];
    if (
      isCelNode(target) &&
      target.op === "id" &&
      target.args === variable &&
      typeof field === "string" &&
      !known.has(field)
    ) {
      out.push({ pos: selectPosition(expression, n.pos), text: `undefined field '${field}'` });
    }
  }
  return out;
}

/** cel-go places a field selection at its `.` (or `.?`), where cel-js places it at the field's name. */
function selectPosition(expression: string, fieldAt: number): number {
  let i = fieldAt - 1;
  while (i > 0 && /\s/.test(expression[i] ?? "")) i--;
  if (expression[i] === "?" && expression[i - 1] === ".") return i - 1;
  return expression[i] === "." ? i : fieldAt;
}

/** `math.greatest(dyn): dyn` rather than the namespace type's name cel-js lists. */
function readable(signature: string, libraries: readonly CelLibrary[]): string {
  let out = signature.replace(/^OptionalNamespace\./, "optional.").replace(/^CelNamespace\./, "cel.");
  for (const lib of libraries)
    for (const c of lib.constants ?? []) if (out.startsWith(`${c.type}.`)) out = c.name + out.slice(c.type.length);
  return out;
}
