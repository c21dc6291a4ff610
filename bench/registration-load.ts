/**
 * `node dist/bench/registration-load.js`: the CPU of registration while a policy library loads
 * (issue 39), in-process: the corpus's ClusterPolicies (the cluster bench's set) added one at a
 * time, and after each the webhook configurations built as `bylaw serve --register` builds them on a
 * policy event and for the policy webhook's check of the policy applied (two builds per policy).
 * "from nothing" works out every policy's rules on each build (before); "kept per policy" keeps them
 * per compiled policy (server/registration/policy-rules.ts; after). The configurations of the two
 * are compared at every step first. Discovery is a table of the built-in kinds plus a few hundred
 * served resources, scanned as the real one is.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { type CompiledPolicy, createEngine, type JsonObject } from "../src/engine/index.js";
import { fakePorts } from "../test/support/fake-ports.js";
import { buildConfigurations } from "../src/server/registration/build-configurations.js";
import { PolicyRules } from "../src/server/registration/policy-rules.js";
import type { KindResolver } from "../src/server/registration/webhook-rules.js";
import { withEveryTimeout } from "../src/server/admission/webhook-groups.js";
import type { RegistrationTarget } from "../src/controllers/registration/types.js";
import { writeCorpusPolicies } from "./cluster/corpus-policies.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const target: RegistrationTarget = {
  endpoint: { kind: "service", name: "bylaw", namespace: "bylaw", port: 443 },
  caPem: "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n",
  ownNamespace: "bylaw",
};
const groups = withEveryTimeout({ defaultSeconds: 10, extra: [], fineGrained: true });

/** A discovery of 400 served resources, each selector scanned over all of them (kube/discovered-kinds.ts kindResources). */
const served = Array.from({ length: 400 }, (_, i) => ({ group: `g${i % 40}.example.com`, kind: `Kind${i}` }));
const resolveKinds: KindResolver = (s) =>
  served
    .filter((r) => (s.group === "*" || s.group === r.group) && (s.kind === "*" || s.kind === r.kind))
    .map((r) => ({ group: r.group, resource: r.kind.toLowerCase() + "s", namespaced: true }));

interface Library {
  readonly policies: readonly CompiledPolicy[];
  /** Each policy compiled again: the policy webhook's candidate is not the object the cluster source compiles later. */
  readonly candidates: readonly CompiledPolicy[];
}

function load(library: Library, build: (set: readonly CompiledPolicy[]) => unknown): number {
  const { policies, candidates } = library;
  const t0 = process.cpuUsage();
  for (let i = 1; i <= policies.length; i++) {
    build([...policies.slice(0, i - 1), candidates[i - 1] as CompiledPolicy]); // the policy webhook's check
    build(policies.slice(0, i)); // the sync after the policy event
  }
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / 1000;
}

function main(): void {
  const corpus =
    process.env["BYLAW_CONFORMANCE_DIR"] ?? resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");
  if (!existsSync(join(corpus, "pod-security"))) {
    console.log(`registration-load: corpus not found at ${corpus}; skipped`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "bylaw-bench-registration-"));
  writeCorpusPolicies(corpus, dir, "cluster-policies");
  const engine = createEngine(fakePorts());
  const policies: CompiledPolicy[] = [];
  const candidates: CompiledPolicy[] = [];
  for (const f of readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()) {
    const doc = parse(readFileSync(join(dir, f), "utf8")) as JsonObject;
    const r = engine.compile(doc);
    const again = engine.compile(doc);
    if (!r.ok || !again.ok) continue;
    policies.push(r.policy);
    candidates.push(again.policy);
  }
  const library = { policies, candidates };
  const fresh = (set: readonly CompiledPolicy[]): unknown => buildConfigurations(set, groups, target, resolveKinds);
  const keptRules = new PolicyRules(resolveKinds);
  const kept = (set: readonly CompiledPolicy[]): unknown => buildConfigurations(set, groups, target, keptRules);
  for (let i = 1; i <= policies.length; i += 17)
    if (!isDeepStrictEqual(fresh(policies.slice(0, i)), kept(policies.slice(0, i))))
      throw new Error(`the two builds differ with ${i} policies`);
  console.log(
    `registration-load: node ${process.version}; ${policies.length} corpus ClusterPolicies added one at a time, two builds each`,
  );
  for (const round of [1, 2]) {
    const before = load(library, fresh);
    const after = load(library, (set) => buildConfigurations(set, groups, target, new PolicyRules(resolveKinds)));
    const keptRun = new PolicyRules(resolveKinds);
    const incremental = load(library, (set) => buildConfigurations(set, groups, target, keptRun));
    console.log(
      `  run ${round}: from nothing ${before.toFixed(0)} ms CPU; kept per policy ${incremental.toFixed(0)} ms CPU (${(before / incremental).toFixed(1)}×); a fresh PolicyRules per build (control) ${after.toFixed(0)} ms`,
    );
  }
}

main();
