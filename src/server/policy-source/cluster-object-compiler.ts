/**
 * Compiles ClusterPolicy, Policy, PolicyException (kyverno.io/v2 and policies.kyverno.io, each with
 * `engine.compileException`) and policies.kyverno.io policy objects
 * (cel-policy-compile.ts) from the cluster one at a time, and
 * remembers each result by the object's uid and a fingerprint of what compiling reads (its
 * generation, labels and annotations): a status write or any other change that leaves the spec and
 * metadata alone never compiles a policy again. An object that does not compile, or that a server
 * check refuses (`checkPolicy`), gets its problems instead.
 */
import {
  type AnyCompiledException,
  type CompiledPolicy,
  type Engine,
  isObject,
  type JsonObject,
  type PolicyProblem,
  problem,
  textOf,
} from "../../engine/index.js";
import { CEL_GROUP, CEL_STORAGE_VERSION, type CelPolicyKind } from "../../kube/cel-policy-kinds.js";
import { celGlobalContextProblems } from "../tenancy/tenant-cel-reads.js";
import { exceptionRefusalProblem } from "./served-exception.js";
import type { KubeObject } from "../../kube/types.js";
import { problemText, withPolicyFixHint } from "../../platform/policy-documents/index.js";
import { compileCelPolicy } from "./cel-policy-compile.js";
import { type Runs, unservedRules } from "./unserved-parts.js";

export type PolicyKind = "ClusterPolicy" | "Policy";

/** The two PolicyException kinds, by group: each is compiled as its CRD's storage version. */
export type ExceptionGroup = "kyverno.io" | typeof CEL_GROUP;

/** The label of a PolicyException in logs and problems, naming its group when it is the CEL one. */
export function exceptionLabel(group: ExceptionGroup, namespace: string, name: string): string {
  return `PolicyException${group === CEL_GROUP ? ` (${CEL_GROUP})` : ""} ${namespace}/${name}`;
}

/** The cache key kind of a PolicyException, distinct per group for objects without a uid. */
export function exceptionKeyKind(group: ExceptionGroup): string {
  return group === CEL_GROUP ? `PolicyException.${CEL_GROUP}` : "PolicyException";
}

interface CompiledObject<T> {
  readonly fingerprint: string;
  readonly value?: T;
  /** `field: message` for each problem; empty when `value` is set. */
  readonly problems: readonly string[];
  /** A served policy with parts Bylaw does not run (unserved-parts.ts): why it is not Ready. */
  readonly notEvaluated?: string;
}

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/**
 * What compiling an object reads, besides the spec (whose changes bump metadata.generation); not
 * kubectl's last-applied annotation (a copy of the whole object, which compiling leaves out).
 */
function fingerprintOf(obj: KubeObject): string {
  const md = (obj["metadata"] ?? {}) as JsonObject;
  let annotations = md["annotations"] ?? null;
  if (isObject(annotations) && annotations[LAST_APPLIED] !== undefined) {
    annotations = { ...annotations };
    delete annotations[LAST_APPLIED];
  }
  return JSON.stringify([
    md["generation"] ?? null,
    md["labels"] ?? null,
    annotations,
    md["generation"] === undefined ? (obj["spec"] ?? null) : null,
  ]);
}

/** The object as a policy document: apiVersion and kind (a list's items carry neither), metadata without server fields, spec; no status. */
function documentOf(obj: KubeObject, apiVersion: string, kind: string): JsonObject {
  const md = (obj["metadata"] ?? {}) as JsonObject;
  const metadata: JsonObject = {};
  for (const k of ["name", "namespace", "uid", "generation", "labels"]) if (md[k] !== undefined) metadata[k] = md[k];
  if (isObject(md["annotations"])) {
    const annotations = { ...md["annotations"] };
    delete annotations[LAST_APPLIED];
    metadata["annotations"] = annotations;
  }
  return { apiVersion, kind, metadata, spec: obj["spec"] ?? {} };
}

export function uidOf(obj: KubeObject, kind: string): string {
  const md = (obj["metadata"] ?? {}) as JsonObject;
  return typeof md["uid"] === "string"
    ? md["uid"]
    : `${kind}/${textOf(md["namespace"] ?? "")}/${textOf(md["name"] ?? "")}`;
}

export class ClusterObjectCompiler {
  private policies = new Map<string, CompiledObject<CompiledPolicy>>();
  private exceptions = new Map<string, CompiledObject<AnyCompiledException>>();
  /** Each watched object's fingerprint: a rebuild after one policy event reads every object again, unchanged ones are the same objects. */
  private readonly fingerprints = new WeakMap<KubeObject, string>();
  /** Compilations done, for tests (an unchanged object is never compiled twice). */
  compiles = 0;

  constructor(
    private readonly engine: Engine,
    private readonly checkPolicy?: (policy: CompiledPolicy) => readonly PolicyProblem[],
    /** What runs beyond admission, read at each rebuild (a component in another process comes and goes). */
    private readonly runs: () => Runs = () => ({}),
  ) {}

  policy(obj: KubeObject, kind: PolicyKind, seen: Set<string>): CompiledObject<CompiledPolicy> {
    const c = this.cached(this.policies, { obj, uid: uidOf(obj, kind), seen }, (fingerprint) =>
      this.compilePolicy(documentOf(obj, "kyverno.io/v1", kind), fingerprint),
    );
    if (c.value === undefined) return c;
    // Stored before Bylaw could refuse it: served for what runs, not Ready for the rest.
    const unserved = unservedRules(c.value, this.runs()).map(problemText);
    return unserved.length > 0 ? { ...c, notEvaluated: unserved.join("; ") } : c;
  }

  /** A policies.kyverno.io policy object, as its CRD's storage version. */
  celPolicy(obj: KubeObject, kind: CelPolicyKind, seen: Set<string>): CompiledObject<CompiledPolicy> {
    const c = this.cached(this.policies, { obj, uid: uidOf(obj, kind), seen }, (fingerprint) =>
      this.compileCel(obj, kind, fingerprint),
    );
    // A GeneratingPolicy is Ready only while the background component runs it.
    if (c.value?.language !== "generating") return c;
    const unserved = unservedRules(c.value, this.runs()).map(problemText);
    return unserved.length > 0 ? { ...c, notEvaluated: unserved.join("; ") } : c;
  }

  private compileCel(obj: KubeObject, kind: CelPolicyKind, fingerprint: string): CompiledObject<CompiledPolicy> {
    const c = compileCelPolicy(
      documentOf(obj, `${CEL_GROUP}/${CEL_STORAGE_VERSION}`, kind),
      this.engine,
      this.checkPolicy,
    );
    return c.policy === undefined
      ? { fingerprint, problems: c.problems.map(problemText) }
      : { fingerprint, value: c.policy, problems: [] };
  }

  /** A PolicyException of either group, as that CRD's storage version, compiled as the object is. */
  exception(obj: KubeObject, group: ExceptionGroup, seen: Set<string>): CompiledObject<AnyCompiledException> {
    return this.cached(this.exceptions, { obj, uid: uidOf(obj, exceptionKeyKind(group)), seen }, (fingerprint) =>
      this.compileException(obj, group, fingerprint),
    );
  }

  private compileException(
    obj: KubeObject,
    group: ExceptionGroup,
    fingerprint: string,
  ): CompiledObject<AnyCompiledException> {
    const doc = documentOf(
      obj,
      group === CEL_GROUP ? `${CEL_GROUP}/${CEL_STORAGE_VERSION}` : "kyverno.io/v2",
      "PolicyException",
    );
    const md = doc["metadata"] as JsonObject;
    let compiled: ReturnType<Engine["compileException"]>;
    try {
      compiled = this.engine.compileException(
        doc,
        exceptionLabel(group, textOf(md["namespace"] ?? ""), textOf(md["name"] ?? "")),
      );
    } catch (e) {
      compiled = {
        ok: false,
        problems: [problem("", `cannot compile the PolicyException: ${e instanceof Error ? e.message : String(e)}`)],
      };
    }
    // A namespaced policies.kyverno.io exception may not read the cluster-wide GlobalContextEntries
    // (tenant-isolation.md rule 3), as the policy webhook refuses it: one stored before is not honoured.
    const tenant =
      group === CEL_GROUP
        ? celGlobalContextProblems(doc, typeof md["namespace"] === "string" ? md["namespace"] : "")
        : [];
    const refusal = compiled.ok ? exceptionRefusalProblem(compiled.exception) : undefined;
    return compiled.ok && tenant.length === 0 && refusal === undefined
      ? { fingerprint, value: compiled.exception, problems: [] }
      : {
          fingerprint,
          problems: [...(compiled.ok ? [] : compiled.problems), ...(refusal !== undefined ? [refusal] : []), ...tenant]
            .filter((p) => p.severity === "error")
            .map(problemText),
        };
  }

  /** Forgets objects no longer in the cluster (those not in `seen` since the last call). */
  forgetUnseen(seen: Set<string>): void {
    for (const map of [this.policies, this.exceptions] as const)
      for (const uid of map.keys()) if (!seen.has(uid)) map.delete(uid);
  }

  /** The object's last result while what compiling reads is unchanged; else compiled again and remembered. */
  private cached<T>(
    results: Map<string, CompiledObject<T>>,
    { obj, uid, seen }: { obj: KubeObject; uid: string; seen: Set<string> },
    compile: (fingerprint: string) => CompiledObject<T>,
  ): CompiledObject<T> {
    seen.add(uid);
    let fingerprint = this.fingerprints.get(obj);
    if (fingerprint === undefined) {
      fingerprint = fingerprintOf(obj);
      this.fingerprints.set(obj, fingerprint);
    }
    const cached = results.get(uid);
    if (cached?.fingerprint === fingerprint) return cached;
    this.compiles++;
    const result = compile(fingerprint);
    results.set(uid, result);
    return result;
  }

  private compilePolicy(doc: JsonObject, fingerprint: string): CompiledObject<CompiledPolicy> {
    let problems: PolicyProblem[];
    try {
      const outcome = this.engine.compile(doc);
      if (outcome.ok) {
        const unfit = this.checkPolicy?.(outcome.policy) ?? [];
        if (unfit.length === 0) return { fingerprint, value: outcome.policy, problems: [] };
        problems = [...unfit];
      } else {
        problems = outcome.problems.filter((x) => x.severity === "error");
      }
    } catch (e) {
      problems = [problem("", `cannot compile the policy: ${e instanceof Error ? e.message : String(e)}`)];
    }
    if (problems.length === 0) problems = [problem("", "the policy does not compile")];
    // On the policy's status as at `kubectl apply`: what `bylaw fix policy` rewrites says so.
    return { fingerprint, problems: problems.map((p) => withPolicyFixHint(problemText(p))) };
  }
}
