/** Fakes for the admission handler tests: deps over real compiled policies, a stepping clock, a recorder. */
import {
  type AnyCompiledException,
  type CompiledPolicy,
  createEngine,
  type Engine,
  type EnginePorts,
  type JsonObject,
  type RuleStatus,
  textOf,
} from "../../src/engine/index.js";
import { fakePorts } from "./fake-ports.js";
import type { AdmissionOutcome, PolicySnapshot, ResultRuleType } from "../../src/server/types.js";
import type { AdmissionDeps } from "../../src/server/admission/deps.js";
import { YamlV3Writer } from "../../src/server/admission/yaml-v3.js";

/** One rule result as the recorder got it, with its review's labels. */
export interface RecordedResult {
  readonly policy: CompiledPolicy;
  readonly rule: string;
  readonly ruleType: ResultRuleType;
  readonly result: RuleStatus;
  readonly resourceKind: string;
  readonly resourceNamespace: string;
  readonly operation: string;
  readonly dryRun: boolean;
  readonly durationSeconds: number;
}

export interface FakeSetup {
  readonly policies?: readonly JsonObject[];
  readonly namespaces?: Readonly<Record<string, Record<string, string>>>;
  /** Whole Namespace objects the cluster facts hold (`namespaceObject`); absent: the facts give none. */
  readonly namespaceObjects?: Readonly<Record<string, JsonObject>>;
  readonly clusterRoles?: Readonly<Record<string, readonly string[]>>;
  /** Seconds the clock moves on each reading (0: frozen). */
  readonly clockStep?: number;
  readonly deadlineSeconds?: number;
  /** PolicyException documents loaded with the policies. */
  readonly exceptions?: readonly JsonObject[];
  readonly exceptionNamespaces?: readonly string[];
  /** The engine's ports (default fakePorts()). */
  readonly ports?: EnginePorts;
  /** A real monotonic clock (performance.now) instead of the stepping one. */
  readonly realClock?: boolean;
  /** How each policy document compiles (default: engine.compile, which must succeed). */
  readonly compile?: (doc: JsonObject, engine: Engine) => CompiledPolicy;
}

export interface Fake {
  readonly deps: AdmissionDeps;
  readonly engine: Engine;
  readonly admissions: AdmissionOutcome[];
  readonly results: RecordedResult[];
}

export function fakeDeps(setup: FakeSetup = {}): Fake {
  const engine = createEngine(setup.ports ?? fakePorts());
  const compiled: CompiledPolicy[] = (setup.policies ?? []).map((doc) => {
    if (setup.compile !== undefined) return setup.compile(doc, engine);
    const r = engine.compile(doc);
    if (!r.ok) throw new Error(r.problems.map((p) => `${p.path}: ${p.message}`).join("; "));
    return r.policy;
  });
  const exceptions: AnyCompiledException[] = (setup.exceptions ?? []).map((doc) => {
    const r = engine.compileException(doc);
    if (!r.ok) throw new Error(r.problems.map((p) => `${p.path}: ${p.message}`).join("; "));
    return r.exception;
  });
  const admissions: AdmissionOutcome[] = [];
  const results: RecordedResult[] = [];
  let t = 100;
  // One snapshot, as a server keeps one between loads: the plans (admission/plans.ts) are cached by it.
  const snapshot: PolicySnapshot = {
    policies: compiled,
    ...(exceptions.length > 0 ? { exceptions } : {}),
    generation: 1,
    loadedAt: 0,
  };
  const deps: AdmissionDeps = {
    engine,
    policies: () => snapshot,
    cluster: {
      namespaceLabels: (ns) => setup.namespaces?.[ns] ?? {},
      roles: (user) => ({ roles: [], clusterRoles: setup.clusterRoles?.[user.username] ?? [] }),
      ...(setup.namespaceObjects !== undefined
        ? { namespaceObject: (ns: string) => setup.namespaceObjects?.[ns] }
        : {}),
    },
    recorder: {
      admission: (o) => admissions.push(o),
      policyResults: (review, response, ruleType, durationSeconds) => {
        for (const r of response.rules) {
          results.push({
            policy: response.policy,
            rule: r.rule,
            ruleType,
            result: r.status,
            resourceKind: review.kind,
            resourceNamespace: review.namespace,
            operation: review.operation,
            dryRun: review.dryRun,
            durationSeconds,
          });
        }
      },
    },
    now: () => {
      if (setup.realClock === true) return performance.now() / 1000;
      const v = t;
      t += setup.clockStep ?? 0;
      return v;
    },
    deadlineSeconds: setup.deadlineSeconds ?? 10,
    denialYaml: new YamlV3Writer(),
    ...(setup.exceptionNamespaces !== undefined ? { exceptionNamespaces: setup.exceptionNamespaces } : {}),
  };
  return { deps, engine, admissions, results };
}

/** An AdmissionReview body for one object; `extra` overrides request fields. */
export function reviewOf(object: JsonObject | null, extra: JsonObject = {}): JsonObject {
  const meta = object !== null && typeof object["metadata"] === "object" ? (object["metadata"] as JsonObject) : {};
  const apiVersion = typeof object?.["apiVersion"] === "string" ? object["apiVersion"] : "v1";
  const slash = apiVersion.indexOf("/");
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      kind: {
        group: slash < 0 ? "" : apiVersion.slice(0, slash),
        version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
        kind: textOf(object?.["kind"] ?? "Pod"),
      },
      resource: { group: "", version: "v1", resource: "pods" },
      operation: "CREATE",
      userInfo: { username: "alice", groups: ["system:authenticated"] },
      ...(typeof meta["name"] === "string" ? { name: meta["name"] } : {}),
      ...(typeof meta["namespace"] === "string" ? { namespace: meta["namespace"] } : {}),
      object,
      ...extra,
    },
  };
}
