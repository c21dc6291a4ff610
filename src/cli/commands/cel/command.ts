/** `bylaw cel`: try a CEL expression in Kyverno's environment, like `bylaw jp` for JMESPath. */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { createCel, fromCel, isObject, toCel, type CelActivation, type JsonValue } from "../../../engine/index.js";
import { parseDocuments } from "../../../platform/yaml/index.js";
import type { Io } from "../../io.js";

export const CEL_HELP = `Usage: bylaw cel COMMAND [flags]

CEL as Kyverno 1.19 compiles it for validate.cel rules and the policies.kyverno.io kinds:
optional types (?.  [?]  orValue  hasValue), cel.bind, heterogeneous numeric comparison, the
ext libraries (strings v2, lists v3, sets, math, encoders, regex) and Kubernetes' lists, regex
and quantity libraries. Regular expressions are RE2. Expressions are type-checked first: an
unknown function or variable is a compile error with its line and column, never a false.

Commands:
  eval EXPR            evaluate an expression and print the result as JSON
      -r, --resource FILE         the object (YAML or JSON; "-" reads standard input); each
                                  document of the file is evaluated in turn, its value headed by
                                  a "# document N: Kind/namespace/name" line when there are
                                  several (default: object = null)
      --old-resource FILE         oldObject (default: null)
      --params FILE               params (default: null)
      --namespace-object FILE     namespaceObject (default: null)
      --request FILE              request, an AdmissionRequest as YAML or JSON (default: {})
      -c, --compact               print compact JSON
  functions            list the functions the environment declares, with their signatures

Variables: object, oldObject, params, namespaceObject, request, variables (empty here).
Exit codes: 0 success; 1 the expression failed to compile or evaluate; 2 bad usage or input;
3 internal error (a bug in Bylaw: please report it).

A compile or evaluation error exits 1 with cel-go's message and position:
  $ bylaw cel eval "object.spec.containers.all(c, c.image.nope())" -r pod.yaml
  bylaw cel eval: compilation failed: ERROR: <input>:1:31: undeclared reference to 'nope' (in container '')
   | object.spec.containers.all(c, c.image.nope())
   | ..............................^
How validate.cel rules, ValidatingPolicies and ValidatingAdmissionPolicies answer, and the known
differences from cel-go, are in docs/policies.md and docs/adr/0010-cel-evaluator.md.

Examples:
  bylaw cel eval "object.spec.containers.map(c, c.image)" -r pod.yaml      # prints ["ghcr.io/acme/web:1.0"]
  bylaw cel eval "object.spec.containers.all(c, c.image.startsWith('ghcr.io/'))" -r pod.yaml
  bylaw cel eval "object.metadata.?labels[?'app'].orValue('none')" -r deploy.yaml
  kubectl get pod web -o yaml | bylaw cel eval "quantity(object.spec.containers[0].resources.limits.memory).isLessThan(quantity('1Gi'))" -r -
  bylaw cel functions | grep quantity`;

export async function celCommand(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === "-h" || sub === "--help") {
    io.out(CEL_HELP);
    return sub === undefined ? 2 : 0;
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      resource: { type: "string", short: "r" },
      "old-resource": { type: "string" },
      params: { type: "string" },
      "namespace-object": { type: "string" },
      request: { type: "string" },
      compact: { type: "boolean", short: "c", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    io.out(CEL_HELP);
    return 0;
  }
  const cel = createCel();
  if (sub === "functions") {
    for (const s of [...cel.functionSignatures()].sort()) io.out(s);
    return 0;
  }
  if (sub !== "eval") return usage(io, `unknown cel command ${JSON.stringify(sub)}`);
  const expr = positionals.join(" ");
  if (expr.trim() === "") return usage(io, "cel eval needs an expression");
  const compiled = cel.compile(expr);
  if (!compiled.ok) {
    io.err(`bylaw cel eval: compilation failed: ${compiled.error.message}`);
    return 1;
  }
  let inputs: Inputs;
  try {
    inputs = await readInputs(values, io);
  } catch (e) {
    io.err(`bylaw cel eval: ${(e as Error).message}`);
    return 2;
  }
  let code = 0;
  const several = inputs.objects.length > 1;
  for (const [i, object] of inputs.objects.entries()) {
    // With several documents, a `# document N: Kind/namespace/name` line says which value is whose.
    const label = several ? documentLabel(object, i) : undefined;
    const activation: CelActivation = { ...inputs.base, object: toCel(object) };
    const result = compiled.value.evaluate(activation);
    if (result.ok) {
      if (label !== undefined) io.out(`# ${label}`);
      io.out(JSON.stringify(fromCel(result.value), null, values.compact ? undefined : 2));
    } else {
      io.err(`bylaw cel eval: evaluation failed${label !== undefined ? ` (${label})` : ""}: ${result.error.message}`);
      code = 1;
    }
  }
  return code;
}

interface Inputs {
  readonly objects: JsonValue[];
  readonly base: Record<string, unknown>;
}

async function readInputs(values: Record<string, string | boolean | undefined>, io: Io): Promise<Inputs> {
  const one = async (flag: string): Promise<JsonValue> => {
    const file = values[flag];
    if (typeof file !== "string") return null;
    const docs = await documents(file, io);
    if (docs.length !== 1) throw new Error(`--${flag} ${file}: expected one document, found ${docs.length}`);
    return docs[0] ?? null;
  };
  const resource = values["resource"];
  const objects = typeof resource === "string" ? await documents(resource, io) : [null];
  const request = values["request"] === undefined ? {} : await one("request");
  return {
    objects,
    base: {
      oldObject: toCel(await one("old-resource")),
      params: toCel(await one("params")),
      namespaceObject: toCel(await one("namespace-object")),
      request: toCel(request),
      variables: {},
    },
  };
}

async function documents(file: string, io: Io): Promise<JsonValue[]> {
  const text = file === "-" ? await io.readStdin() : await readFile(file, "utf8");
  const source = file === "-" ? "<stdin>" : file;
  const out: JsonValue[] = [];
  for (const d of parseDocuments(text, source)) {
    if (d.error !== undefined) throw new Error(d.error);
    if (d.value !== undefined && d.value !== null) out.push(d.value);
  }
  if (out.length === 0) throw new Error(`${source}: no document`);
  return out;
}

/** `document 2: Pod/shop/web` (the namespace left out when there is none). */
function documentLabel(object: JsonValue, index: number): string {
  const doc = isObject(object) ? object : {};
  const meta = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const text = (v: JsonValue | undefined) => (typeof v === "string" && v !== "" ? v : undefined);
  const parts = [text(doc["kind"]) ?? "(no kind)", text(meta["namespace"]), text(meta["name"]) ?? "(no name)"];
  return `document ${index + 1}: ${parts.filter((p) => p !== undefined).join("/")}`;
}

function usage(io: Io, message: string): number {
  io.err(`bylaw cel: ${message}\n\n${CEL_HELP}`);
  return 2;
}
