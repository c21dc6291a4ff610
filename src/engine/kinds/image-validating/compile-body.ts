/**
 * One ImageValidatingPolicy spec compiled into programs: matchConstraints, matchConditions,
 * variables, `images` extractors, `matchImageReferences` (glob or an expression over `ref`),
 * attestors and attestations, validations and auditAnnotations, and `validationConfigurations`
 * (mutateDigest, verifyDigest and required, each true unless set false, as the CRD defaults them).
 * Every expression compiles here; the first that does not is the body's `failure` ("failed to
 * compile policy: <field>: …"), which every matched resource gets as an error. Types are checked
 * exactly where Kyverno's compiler checks them (exact-types.ts): matchImageReferences,
 * matchConditions and validations bool, messageExpression string, auditAnnotations string or
 * null, images list(string), list(dyn) or dyn.
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import type { PolicyProblem } from "../../api/problem.js";
import { createCel } from "../../cel/create-cel.js";
import type { CelEngine, CelProgram } from "../../cel/types.js";
import { compileConstraints } from "../../cel/validating-policy/match-constraints.js";
import { compileGlob } from "../../values/glob.js";
import { autogenSpecs } from "../../cel/validating-policy/autogen.js";
import { ExactTypes } from "../../cel/exact-types.js";
import { compileAttestors } from "./attestors.js";
import type { CompiledImageValidatingBody, ImageReferenceMatch, NamedProgram } from "./body.js";

const ENGINES: { cluster?: CelEngine; namespaced?: CelEngine; ref?: CelEngine } = {};

/** Kyverno's ImageValidatingPolicy environment: a ValidatingPolicy's, with the image verification functions and variables. */
function imageCel(scope: "cluster" | "namespaced"): CelEngine {
  return (ENGINES[scope] ??= createCel({ kyverno: scope, imageVerify: true }));
}

/** matchImageReferences expressions read `ref` only (Kyverno's NewMatchImageEnv). */
function refCel(): CelEngine {
  return (ENGINES.ref ??= createCel({ variables: [{ name: "ref", type: "string" }] }));
}

function list(v: JsonValue | undefined): JsonObject[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function text(o: JsonObject, key: string): string | undefined {
  const v = o[key];
  return typeof v === "string" ? v : undefined;
}

type Compiled = { ok: true; body: CompiledImageValidatingBody } | { ok: false; problems: PolicyProblem[] };

/**
 * The policy's body with its autogen copies for pod controllers (validating-policy/autogen.ts: the
 * same copies Kyverno's ivpol autogen makes, `object.spec` read at the controller's pod template).
 * A copy whose expressions do not compile carries its failure as the policy's own would.
 */
export function compileImageValidatingBody(spec: JsonObject, label: string, scope: "cluster" | "namespaced"): Compiled {
  const own = compileOneBody(spec, label, scope);
  if (!own.ok) return own;
  const autogen: CompiledImageValidatingBody[] = [];
  for (const copy of autogenSpecs(spec)) {
    const compiled = compileOneBody(copy, `${label} (autogen for pod controllers)`, scope);
    if (!compiled.ok) return compiled;
    autogen.push(compiled.body);
  }
  return { ok: true, body: { ...own.body, autogen } };
}

function compileOneBody(spec: JsonObject, label: string, scope: "cluster" | "namespaced"): Compiled {
  const own = spec["matchConstraints"] === undefined ? { ...spec, matchConstraints: {} } : spec;
  const constraints = compileConstraints(own, label);
  if (!constraints.ok) return constraints;
  const programs = new Programs(
    imageCel(scope),
    list(spec["variables"]).map((v) => text(v, "name") ?? ""),
  );
  const config = isObject(spec["validationConfigurations"]) ? spec["validationConfigurations"] : {};
  // In the order Kyverno's compiler takes them, so the first failure is the one it reports:
  // matchImageReferences (with the environment), matchConditions, images, variables, validations,
  // auditAnnotations.
  const matchImageReferences = programs.references(list(spec["matchImageReferences"]));
  const matchConditions = programs.named(list(spec["matchConditions"]), "spec.matchConditions", BOOL, false);
  const before = programs.failure;
  // Kyverno compiles the extractors before the variables: an extractor cannot read one.
  const images = programs.named(list(spec["images"]), "spec.images", IMAGES, false);
  // named() keeps the extractors before the first that fails: their count is its index.
  const failedImage = before === undefined && programs.failure !== undefined ? images.length : undefined;
  const variables = programs.named(list(spec["variables"]), "spec.variables", undefined, true);
  const body: Omit<CompiledImageValidatingBody, "failure" | "failedImage" | "autogen"> = {
    constraints: constraints.value,
    failurePolicy: spec["failurePolicy"] === "Ignore" ? "Ignore" : "Fail",
    matchConditions,
    variables,
    images,
    matchImageReferences,
    attestors: compileAttestors(spec["attestors"]),
    attestations: new Map(list(spec["attestations"]).map((a) => [text(a, "name") ?? "", a])),
    validations: list(spec["validations"]).flatMap((v, i) => {
      const at = `spec.validations[${i}]`;
      const program = programs.one(`${at}.expression`, text(v, "expression"), BOOL, true);
      const me = text(v, "messageExpression");
      const messageExpression =
        me === undefined ? undefined : programs.one(`${at}.messageExpression`, me, STRING, true);
      return program === undefined
        ? []
        : [{ expression: text(v, "expression") ?? "", program, message: text(v, "message") ?? "", messageExpression }];
    }),
    auditAnnotations: list(spec["auditAnnotations"]).flatMap((a, i) => {
      const at = `spec.auditAnnotations[${i}].valueExpression`;
      const program = programs.one(at, text(a, "valueExpression"), ANNOTATION, true);
      return program === undefined ? [] : [{ key: text(a, "key") ?? "", program }];
    }),
    credentials: isObject(spec["credentials"]) ? spec["credentials"] : undefined,
    mutateDigest: config["mutateDigest"] !== false,
    verifyDigest: config["verifyDigest"] !== false,
    required: config["required"] !== false,
  };
  return { ok: true, body: { ...body, failure: programs.failure, failedImage, autogen: [] } };
}

/** A type Kyverno's compiler wants exactly (exact-types.ts): the types it takes and its words for them. */
interface Exact {
  readonly types: readonly string[];
  readonly wanted: string;
}
const BOOL: Exact = { types: ["bool"], wanted: "of type bool" };
const STRING: Exact = { types: ["string"], wanted: "of type string" };
const ANNOTATION: Exact = { types: ["string", "null"], wanted: "either of type string or null_type" };
/** An images extractor: list(string), dyn or list(dyn) (pkg/cel/compiler/images.go); cel-go names list(string) `list`. */
const IMAGES: Exact = { types: ["list<string>", "dyn", "list"], wanted: "of type list" };

/** Compiles expressions until the first that does not, which it keeps as `failure`. */
class Programs {
  failure: string | undefined;
  /** Variables are recorded here; a typed expression is checked against it, as Kyverno's compiler checks. */
  private readonly types = new ExactTypes();

  constructor(
    private readonly cel: CelEngine,
    private readonly variableNames: readonly string[],
  ) {}

  one(
    field: string,
    expression: string | undefined,
    exact: Exact | undefined,
    variables: boolean,
  ): CelProgram | undefined {
    return this.compile(this.cel, field, expression, { exact, names: variables ? this.variableNames : [] });
  }

  /** Each item's `expression`; a variable (no exact type) is recorded for the expressions that read it. */
  named(items: readonly JsonObject[], field: string, exact: Exact | undefined, variables: boolean): NamedProgram[] {
    return items.flatMap((item, i) => {
      const program = this.one(`${field}[${i}].expression`, text(item, "expression"), exact, variables);
      if (program !== undefined && exact === undefined) this.types.variable(text(item, "name") ?? "", program);
      return program === undefined ? [] : [{ name: text(item, "name") ?? "", program }];
    });
  }

  references(items: readonly JsonObject[]): ImageReferenceMatch[] {
    return items.flatMap((item, i): ImageReferenceMatch[] => {
      const glob = text(item, "glob");
      if (glob !== undefined && glob !== "") {
        const compiled = compileGlob(glob);
        if (compiled.ok) return [{ glob: compiled.value }];
        this.failure ??= `failed to compile policy: spec.matchImageReferences[${i}].glob: ${compiled.error.message}`;
        return [];
      }
      const expression = text(item, "expression");
      const field = `spec.matchImageReferences[${i}].expression`;
      const program = this.compile(refCel(), field, expression, { exact: BOOL, names: [] });
      return program === undefined || expression === undefined ? [] : [{ expression, program }];
    });
  }

  private compile(
    cel: CelEngine,
    field: string,
    expression: string | undefined,
    opts: { readonly exact: Exact | undefined; readonly names: readonly string[] },
  ): CelProgram | undefined {
    if (this.failure !== undefined) return undefined;
    if (expression === undefined || expression.trim() === "") {
      this.failure = `failed to compile policy: ${field}: an expression is required`;
      return undefined;
    }
    const r = cel.compile(expression, { variableNames: opts.names });
    const why = !r.ok
      ? r.error.message
      : opts.exact === undefined
        ? undefined
        : this.types.refusal(r.value, opts.exact.types, opts.exact.wanted);
    if (why === undefined) return r.ok ? r.value : undefined;
    // Kubernetes' field.Invalid, as Kyverno's compiler words it.
    this.failure = `failed to compile policy: ${field}: Invalid value: ${JSON.stringify(expression)}: ${why}`;
    return undefined;
  }
}
