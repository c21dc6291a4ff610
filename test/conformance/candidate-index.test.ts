/**
 * Differential test of the candidate index (engine `indexPolicies`) over the whole conformance
 * corpus (../shared/conformance/kyverno-policies): every suite runs as `bylaw test` runs it, and each
 * policy evaluated (validate, mutate, generate) is also asked of the index. `bylaw test` evaluates
 * few pairs that cannot match, so each suite then evaluates every policy it compiled against every
 * request it evaluated and the last few of the suites before it (other kinds), as CREATE, UPDATE and
 * DELETE (the cross product), each also through generate and, for mutate-existing rules, through
 * their view, as the walks after an allowed review ask (server/admission generate-work.ts,
 * mutate-existing-work.ts; the mutating webhook's plan is asked of the index too). The indexed path leaves
 * out exactly the policies the index rules out, and answers them with no rule results; so the two
 * paths agree on every result when every policy ruled out gives no rule result when evaluated. The
 * test fails on the first one that does, naming the suite, policy and resource. Skipped when the
 * corpus is not there.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { offlineEngine } from "../../src/cli/offline/offline-engine.js";
import { runSuites } from "../../src/cli/test-suite/run-suite.js";
import {
  type CandidateIndex,
  type CompiledPolicy,
  type Engine,
  type EngineRequest,
  err,
  type ExistingResources,
  indexPolicies,
  mutateExistingRuleNames,
  mutateExistingView,
  namespaceLabelsNeeded,
  type PolicyResponse,
  type PreparedRequest,
  type RequestInput,
} from "../../src/engine/index.js";
import { readManifest } from "./manifest.js";
import { keepingCompiled } from "./keeping-compiled.js";
import { asOperation } from "./as-operation.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const corpus =
  process.env["BYLAW_CONFORMANCE_DIR"] ?? resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");

interface Tally {
  /** Policies compiled and requests evaluated by the current suite, for its cross product. */
  policies: CompiledPolicy[];
  requests: EngineRequest[];
  evaluated: number;
  ruledOut: number;
  withResults: number;
  differences: string[];
}

function isPrepared(r: RequestInput): r is PreparedRequest {
  return typeof (r as Partial<PreparedRequest>).derived === "function";
}

type Check = (what: string, policy: CompiledPolicy, request: RequestInput, response: PolicyResponse) => void;

/** Checks one evaluation's response against the index of `policy` (the policy as the webhook plans index it). */
function checker(engine: Engine, suite: string, tally: Tally): Check {
  const indexes = new WeakMap<CompiledPolicy, CandidateIndex>();
  return (what, policy, request, response) => {
    let index = indexes.get(policy);
    if (index === undefined) {
      index = indexPolicies([policy]);
      indexes.set(policy, index);
    }
    const prepared = isPrepared(request) ? request : engine.prepare(request);
    if (!tally.requests.includes(prepared.request)) tally.requests.push(prepared.request);
    tally.evaluated++;
    if (response.rules.length > 0) tally.withResults++;
    if (index.candidates(prepared)[0] === 1) return;
    tally.ruledOut++;
    const on = `${suite}: ${what} ${policy.name} on ${JSON.stringify(prepared.subject["kind"] ?? "")} ${JSON.stringify(prepared.subject["metadata"] ?? {})} (${prepared.operation}): ruled out by the index`;
    if (response.rules.length > 0)
      tally.differences.push(`${on}, but gave ${response.rules.map((r) => `${r.rule}=${r.status}`).join(", ")}`);
    // In a namespace the cluster facts do not know, the webhook answers a rule that needs the
    // namespace's labels with an error (server/admission/namespace-facts.ts): a policy ruled out
    // must need none, or the index would drop that error.
    for (const type of ["Validation", "Mutation"] as const) {
      const need = namespaceLabelsNeeded(policy, prepared, type);
      if (need.scope !== "none") tally.differences.push(`${on}, but needs its namespace's labels (${type})`);
    }
  };
}

/** The engine `bylaw test` uses, with every evaluation checked against the index of its policy. */
function checked(engine: Engine, suite: string, tally: Tally): Engine {
  const check = checker(engine, suite, tally);
  return {
    ...keepingCompiled(engine, (p) => tally.policies.push(p)),
    validate: (policy, request, interruption) => {
      const response = engine.validate(policy, request, interruption);
      check("validate", policy, request, response);
      return response;
    },
    mutate: (policy, request, existing, interruption) => {
      const response = engine.mutate(policy, request, existing, interruption);
      check("mutate", policy, request, response);
      return response;
    },
    generate: (policy, request, existing) => {
      const response = engine.generate(policy, request, existing);
      check("generate", policy, request, response);
      return response;
    },
  };
}

/** The walks after the answer read nothing at admission (generate-work.ts, mutate-existing-work.ts). */
const NOT_READ: ExistingResources = {
  get: () => err("pending", "not read at admission"),
  list: () => err("pending", "not read at admission"),
};

/** Requests kept from earlier suites for the next suite's cross product. */
const POOLED = 8;

/** Every policy the suite compiled against every request it evaluated (and the last POOLED of earlier suites), as each operation. */
function crossProduct(suite: string, tally: Tally): void {
  const probe: Tally = { policies: [], requests: [], evaluated: 0, ruledOut: 0, withResults: 0, differences: [] };
  const base = offlineEngine();
  const engine = checked(base, `${suite} (cross product)`, probe);
  // The walks after an allowed review (server/admission generate-work.ts, mutate-existing-work.ts) ask
  // the index of the policy, then evaluate generate rules, and mutate-existing rules through their view.
  const check = checker(base, `${suite} (cross product, after the answer)`, probe);
  for (const request of tally.requests)
    for (const operation of ["CREATE", "UPDATE", "DELETE"] as const) {
      const r = asOperation(request, operation);
      for (const policy of tally.policies) {
        try {
          engine.validate(policy, r);
          engine.mutate(policy, r);
          engine.generate(policy, r, NOT_READ);
          if (mutateExistingRuleNames(policy).length > 0)
            check("mutate-existing", policy, r, base.mutate(mutateExistingView(policy), r, NOT_READ));
        } catch {
          // An evaluation that throws (a request the suite never made) says nothing of the index.
        }
      }
    }
  tally.evaluated += probe.evaluated;
  tally.ruledOut += probe.ruledOut;
  tally.withResults += probe.withResults;
  tally.differences.push(...probe.differences);
  tally.policies = [];
  // The requests of the last suites stay for the next one: its policies meet other kinds too.
  tally.requests = tally.requests.slice(-POOLED);
}

test(
  "the candidate index rules out no policy that gives a result, over the whole conformance corpus",
  {
    skip: existsSync(join(corpus, "MANIFEST.tsv")) ? false : `no corpus at ${corpus}`,
  },
  async () => {
    const tally: Tally = { policies: [], requests: [], evaluated: 0, ruledOut: 0, withResults: 0, differences: [] };
    const manifest = await readManifest(join(corpus, "MANIFEST.tsv"));
    let rows = 0;
    for (const entry of manifest) {
      const file = join(corpus, entry.suiteDir, ".kyverno-test", "kyverno-test.yaml");
      const suites = await runSuites(
        file,
        (spec, cluster) => checked(offlineEngine(spec, cluster), entry.suiteDir, tally),
        entry.suiteDir,
      );
      rows += suites.reduce((n, s) => n + s.results.length, 0);
      crossProduct(entry.suiteDir, tally);
    }
    console.log(
      `candidate index over ${manifest.length} suites (${rows} rows): ${tally.evaluated} evaluations, ${tally.withResults} with results, ${tally.ruledOut} ruled out by the index, ${tally.differences.length} differences`,
    );
    assert.deepEqual(tally.differences, []);
    // The corpus exercises the index: it rules policies out (a test that cannot fail would rule none out).
    assert.ok(tally.ruledOut > 0, "the index ruled out no evaluation over the corpus");
    assert.ok(tally.withResults > 0);
  },
);
