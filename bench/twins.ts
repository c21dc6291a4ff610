/**
 * `npm run bench:twins`: what a performance twin (docs/adr/0008-performance-twins.md) saves on the
 * path that uses it. Each case times the fast way (A) and the general way (B) on the same inputs,
 * in alternating child processes (bench/paired.ts). The one twin left is the prepared set
 * operators; the deleted twins were measured here first (the ADR names the commit). The workload
 * is the webhook bench's: the Kyverno library's Pod Security ClusterPolicies and Pods. Figures,
 * never verdicts. `TWINS=set-review,set-policies` runs only the cases whose names start so;
 * `node dist/bench/twins.js <case> <arm>` times one arm of one case.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import type { JsonObject, JsonValue } from "../src/engine/api/json.js";
import { offlineEngine } from "../src/cli/offline/offline-engine.js";
import type { EngineRequest } from "../src/engine/pipeline/types.js";
import type { CompiledPolicy, KyvernoCompiledPolicy } from "../src/engine/policy/compiled-policy.js";
import type { CompiledCondition } from "../src/engine/conditions/compile.js";
import { operatorFor } from "../src/engine/conditions/operators.js";
import { goodPod, pssPolicyFiles } from "./webhook/workload.js";
import { conditionCases } from "./twins-conditions.js";
import { runArm, runPaired, type PairedCase } from "./paired.js";

const script = fileURLToPath(import.meta.url);
const repoRoot = resolve(dirname(script), "..", "..");

const badPod: JsonObject = {
  ...goodPod,
  metadata: { name: "debug", namespace: "shop" },
  spec: { hostNetwork: true, containers: [{ name: "shell", image: "busybox", securityContext: { privileged: true } }] },
};
const PODS = { passing: goodPod, failing: badPod } as const;

function loadPolicies(): CompiledPolicy[] {
  const corpus =
    process.env["BYLAW_CONFORMANCE_DIR"] ?? resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");
  const engine = offlineEngine();
  return pssPolicyFiles(corpus).map((file) => {
    const doc = parseAllDocuments(readFileSync(file, "utf8"))[0]?.toJSON() as JsonValue;
    const r = engine.compile(doc);
    if (!r.ok) throw new Error(`${file}: ${r.problems.map((p) => p.message).join("; ")}`);
    return r.policy;
  });
}

/**
 * Turns every compiled deny condition of the policies to the general operator, in place: the
 * policy's expression cache hands out the compiled conditions by object, and they are plain data.
 */
function generalConditions(policies: readonly CompiledPolicy[]): number {
  let swapped = 0;
  const visit = (v: unknown, cache: KyvernoCompiledPolicy["cache"]): void => {
    if (Array.isArray(v)) for (const x of v) visit(x, cache);
    if (typeof v !== "object" || v === null) return;
    for (const [k, x] of Object.entries(v)) {
      if (k === "conditions") {
        const compiled = cache.conditions(x, "deny conditions");
        if (compiled.kind !== "any-all") continue;
        for (const list of [compiled.any, compiled.all] as CompiledCondition[][]) {
          list.forEach((c, i) => {
            if (c.operator !== operatorFor(c.operatorName)) swapped++;
            list[i] = { ...c, operator: operatorFor(c.operatorName) };
          });
        }
      } else {
        visit(x, cache);
      }
    }
  };
  for (const p of policies) if (p.language === "kyverno") for (const r of p.rules) visit(r.rule.validate, p.cache);
  return swapped;
}

const secureContext = goodPod.spec.containers[0]?.securityContext;
/** A Pod whose containers add a capability each and which mounts three kinds of volume. */
const capabilitiesPod: JsonObject = {
  ...goodPod,
  spec: {
    ...(goodPod["spec"] as JsonObject),
    containers: ["app", "sidecar", "proxy"].map((name) => ({
      name,
      image: `registry.example.com/shop/${name}:1`,
      securityContext: { ...secureContext, capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] } },
    })),
    volumes: [
      { name: "cache", emptyDir: {} },
      { name: "config", configMap: { name: "web" } },
      { name: "token", projected: { sources: [] } },
    ],
  },
};

/** Only the policies with a set condition, or all 17. */
function preparedSetCase(pod: keyof typeof PODS | "capabilities", only: boolean): PairedCase {
  return {
    label: `conditions: one review of a ${pod} Pod by ${only ? "the 3 PSS policies with AnyNotIn against a fixed list" : "the 17 PSS policies (3 with AnyNotIn against a fixed list)"}`,
    arms: ["prepared sets", "general operators"],
    setup: () => {
      const engine = offlineEngine();
      const general = loadPolicies();
      const touched = general.filter((p) => generalConditions([p]) > 0);
      if (touched.length === 0) throw new Error("no prepared set operator found");
      const prepared = loadPolicies().filter((p) => !only || touched.some((t) => t.name === p.name));
      const resource = pod === "capabilities" ? capabilitiesPod : PODS[pod];
      const review = (set: readonly CompiledPolicy[]) => () => {
        const request: EngineRequest = {
          resource,
          operation: "CREATE",
          namespaceLabels: {},
          userInfo: { username: "dev", groups: [], roles: [], clusterRoles: [] },
        };
        for (const p of set) engine.validate(p, request);
      };
      return [review(prepared), review(only ? touched : general)];
    },
  };
}

const CASES: Readonly<Record<string, PairedCase>> = {
  ...conditionCases,
  "set-review-passing": preparedSetCase("passing", false),
  "set-review-failing": preparedSetCase("failing", false),
  "set-policies-capabilities": preparedSetCase("capabilities", true),
};

const [name, arm] = process.argv.slice(2);
if (name !== undefined && arm !== undefined) {
  runArm(CASES, name, arm);
} else {
  console.log(`bench:twins: node ${process.version}, ${new Date().toISOString()}`);
  runPaired(
    script,
    CASES,
    (process.env["TWINS"] ?? "").split(",").filter((s) => s !== ""),
  );
}
