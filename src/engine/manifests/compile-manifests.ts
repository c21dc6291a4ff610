/**
 * Load-time reading of `validate.manifests` (Kyverno's `Manifests`): attestor sets, `ignoreFields`,
 * `annotationDomain`, `dryRun`, `repository`. Shapes the CRD rejects are problems naming the field.
 * What Bylaw cannot check offline is kept, named, and answered as an `error` where Kyverno would
 * need it: a dry-run create, an OCI-stored signature (`repository`), keys that are not inline PEM
 * (`k8s://` Secrets, KMS), PGP keys, `certificates` and `keyless` entries (Rekor, Fulcio).
 */
import { pemPublicKeys } from "../values/pem-public-keys.js";
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import { problem, type PolicyProblem } from "../api/problem.js";
import type { AttestorEntry, AttestorSet, CompiledManifests, FieldBinding, ObjectPattern } from "./types.js";

const DEFAULT_ANNOTATION_DOMAIN = "cosign.sigstore.dev";
const PEM_KEY = "-----BEGIN PUBLIC KEY-----";
const PGP_KEY = "-----BEGIN PGP PUBLIC KEY BLOCK-----";
const MAX_NESTING = 8;

type ManifestsCompileResult = { ok: true; value: CompiledManifests } | { ok: false; problems: PolicyProblem[] };

export function compileManifests(raw: JsonValue, path: string): ManifestsCompileResult {
  const problems: PolicyProblem[] = [];
  if (!isObject(raw))
    return {
      ok: false,
      problems: [
        problem(
          path,
          "must be a mapping with attestors, and optional annotationDomain, ignoreFields, dryRun and repository",
        ),
      ],
    };
  const domainRaw = raw["annotationDomain"];
  if (domainRaw !== undefined && domainRaw !== null && typeof domainRaw !== "string")
    problems.push(problem(`${path}.annotationDomain`, "must be a string"));
  const domain = typeof domainRaw === "string" && domainRaw !== "" ? domainRaw : DEFAULT_ANNOTATION_DOMAIN;
  const attestorsRaw = raw["attestors"] ?? [];
  const attestors: AttestorSet[] = [];
  if (!Array.isArray(attestorsRaw)) problems.push(problem(`${path}.attestors`, "must be a list of attestor sets"));
  else
    attestorsRaw.forEach((a, i) => {
      const set = attestorSet(a, `${path}.attestors[${i}]`, problems, 0);
      if (set !== undefined) attestors.push(set);
    });
  const ignoreFields = bindings(raw["ignoreFields"], `${path}.ignoreFields`, problems);
  let unsupported: string | undefined;
  const dryRun = raw["dryRun"];
  if (dryRun !== undefined && dryRun !== null && !isObject(dryRun))
    problems.push(problem(`${path}.dryRun`, "must be a mapping with enable and namespace"));
  if (isObject(dryRun) && dryRun["enable"] === true) {
    unsupported =
      "validate.manifests.dryRun.enable: true needs a cluster (Kyverno creates the signed manifest with a server-side dry run to compare defaulted fields); Bylaw does not make that call";
  }
  const repository = raw["repository"];
  if (typeof repository === "string" && repository !== "" && unsupported === undefined) {
    unsupported = `validate.manifests.repository (${repository}): signed manifests stored in an OCI registry are not fetched by Bylaw; only signatures in the resource's annotations are verified`;
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: { domain, attestors, ignoreFields, ...(unsupported !== undefined ? { unsupported } : {}) },
  };
}

function attestorSet(raw: JsonValue, path: string, problems: PolicyProblem[], depth: number): AttestorSet | undefined {
  if (!isObject(raw)) {
    problems.push(problem(path, "must be a mapping with count and entries"));
    return undefined;
  }
  const countRaw = raw["count"];
  let count: number | undefined;
  if (countRaw !== undefined && countRaw !== null) {
    if (typeof countRaw !== "number" || !Number.isInteger(countRaw) || countRaw < 1)
      problems.push(problem(`${path}.count`, "must be an integer of at least 1"));
    else count = countRaw;
  }
  const entriesRaw = raw["entries"] ?? [];
  if (!Array.isArray(entriesRaw)) {
    problems.push(problem(`${path}.entries`, "must be a list of attestors"));
    return undefined;
  }
  const entries: AttestorEntry[] = [];
  entriesRaw.forEach((e, j) => entries.push(...entry(e, `${path}.entries[${j}]`, problems, depth)));
  return { count, entries };
}

function stringMap(
  raw: JsonValue | undefined,
  path: string,
  problems: PolicyProblem[],
): Record<string, string> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw) || !Object.values(raw).every((v) => typeof v === "string")) {
    problems.push(problem(path, "must be a map of strings"));
    return undefined;
  }
  return raw as Record<string, string>;
}

/** One entry, or several for a `publicKeys` holding several PEM keys (Kyverno's `ExpandStaticKeys`). */
function entry(raw: JsonValue, path: string, problems: PolicyProblem[], depth: number): AttestorEntry[] {
  if (!isObject(raw)) {
    problems.push(problem(path, "must be a mapping with keys, certificates, keyless or attestor"));
    return [];
  }
  const annotations = stringMap(raw["annotations"], `${path}.annotations`, problems);
  const extra = annotations !== undefined ? { annotations } : {};
  const offline = (subPath: string, reason: string): AttestorEntry[] => [
    { kind: "offline", subPath, reason, ...extra },
  ];
  const repository = raw["repository"];
  if (typeof repository === "string" && repository !== "") {
    return offline(
      raw["keys"] !== undefined
        ? ".keys"
        : raw["certificates"] !== undefined
          ? ".certificates"
          : raw["keyless"] !== undefined
            ? ".keyless"
            : "",
      `${path}.repository (${repository}): signed manifests stored in an OCI registry are not fetched by Bylaw`,
    );
  }
  if (raw["attestor"] !== undefined && raw["attestor"] !== null) {
    if (depth >= MAX_NESTING) {
      problems.push(problem(`${path}.attestor`, `nests attestors deeper than ${MAX_NESTING} levels`));
      return [];
    }
    const set = attestorSet(raw["attestor"], `${path}.attestor`, problems, depth + 1);
    return set === undefined ? [] : [{ kind: "nested", set, ...extra }];
  }
  if (isObject(raw["keys"])) return keyEntries(raw["keys"], `${path}.keys`, extra, offline);
  if (raw["keys"] !== undefined && raw["keys"] !== null) {
    problems.push(problem(`${path}.keys`, "must be a mapping with publicKeys"));
    return [];
  }
  if (raw["certificates"] !== undefined && raw["certificates"] !== null) {
    return offline(
      ".certificates",
      `${path}.certificates: certificate attestors are verified by cosign against the Rekor transparency log, which Bylaw does not reach offline`,
    );
  }
  if (raw["keyless"] !== undefined && raw["keyless"] !== null) {
    return offline(
      ".keyless",
      `${path}.keyless: keyless signatures need Fulcio roots and the Rekor transparency log, which Bylaw does not reach offline`,
    );
  }
  return offline("", `${path}: the entry has no keys, certificates, keyless or attestor to verify with`);
}

function keyEntries(
  keys: JsonObject,
  path: string,
  extra: { annotations?: Record<string, string> },
  offline: (subPath: string, reason: string) => AttestorEntry[],
): AttestorEntry[] {
  const publicKeys = typeof keys["publicKeys"] === "string" ? keys["publicKeys"] : "";
  if (publicKeys.startsWith(PEM_KEY) || publicKeys.trimStart().startsWith(PEM_KEY)) {
    const pems = pemPublicKeys(publicKeys);
    if (pems.length > 0) return pems.map((publicKey) => ({ kind: "key", publicKey, subPath: ".keys", ...extra }));
  }
  if (publicKeys.startsWith(PGP_KEY))
    return offline(".keys", `${path}.publicKeys: PGP public keys are not supported by Bylaw; use a PEM public key`);
  if (publicKeys.startsWith("k8s://"))
    return offline(
      ".keys",
      `${path}.publicKeys (${publicKeys}): a key in a Kubernetes Secret needs a cluster; put the PEM key inline`,
    );
  if (publicKeys.trimStart().startsWith("-----BEGIN ")) {
    return offline(
      ".keys",
      `${path}.publicKeys holds ${publicKeys.trim().split("\n")[0] ?? ""}: Kyverno's manifest check loads only PEM public keys (-----BEGIN PUBLIC KEY-----)`,
    );
  }
  if (publicKeys !== "")
    return offline(
      ".keys",
      `${path}.publicKeys: a key reference (${publicKeys.split("\n")[0] ?? ""}: KMS or file) is not read by Bylaw; put the PEM key inline`,
    );
  const other = ["kms", "secret"].filter((k) => keys[k] !== undefined && keys[k] !== null);
  const named =
    other.length > 0
      ? ` (Kyverno's manifest check reads only publicKeys, not ${other.map((k) => `keys.${k}`).join(" or ")})`
      : "";
  return offline(
    ".keys",
    `${path}.publicKeys is empty${named}: cosign then verifies keyless, with Fulcio and the Rekor transparency log, which Bylaw does not reach offline`,
  );
}

function bindings(raw: JsonValue | undefined, path: string, problems: PolicyProblem[]): FieldBinding[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    problems.push(problem(path, "must be a list of {objects, fields}"));
    return [];
  }
  const out: FieldBinding[] = [];
  raw.forEach((b, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(b)) return void problems.push(problem(at, "must be a mapping with objects and fields"));
    const fields = b["fields"] ?? [];
    const objects = b["objects"] ?? [];
    if (!Array.isArray(fields) || !fields.every((f) => typeof f === "string"))
      return void problems.push(problem(`${at}.fields`, "must be a list of strings"));
    if (!Array.isArray(objects) || !objects.every(isObject))
      return void problems.push(problem(`${at}.objects`, "must be a list of {group, version, kind, name, namespace}"));
    const patterns: ObjectPattern[] = objects.map((o) => {
      const p: Record<string, string> = {};
      for (const k of ["group", "version", "kind", "name", "namespace"]) if (typeof o[k] === "string") p[k] = o[k];
      return p;
    });
    out.push({ fields: fields, objects: patterns });
  });
  return out;
}
