/**
 * Differential test of the candidate index (engine `indexPolicies`) over the whole conformance
 * corpus (../shared/conformance/kyverno-policies): every suite runs as `bylaw test` runs it, and each
 * policy evaluated (validate, mutate, generate) is also asked of the index. `bylaw test` evaluates
 * few pairs that cannot match, so each suite then evaluates every policy it compiled against every
 * request it evaluated and the last few of the suites before it (other kinds), as CREATE, UPDATE and
 * DELETE (the cross product). The indexed path leaves
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
  indexPolicies,
  type PolicyResponse,
  type PreparedRequest,
  type RequestInput,
} from "../../src/engine/index.js";
import { readManifest } from "./manifest.js";

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

/** The engine `bylaw test` uses, with every evaluation checked against the index of its policy. */
function checked(engine: Engine, suite: string, tally: Tally): Engine {
  const indexes = new WeakMap<CompiledPolicy, CandidateIndex>();
  const check = (what: string, policy: CompiledPolicy, request: RequestInput, response: PolicyResponse): void => {
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
    if (response.rules.length > 0)
      tally.differences.push(
        `${suite}: ${what} ${policy.name} on ${JSON.stringify(prepared.subject["kind"] ?? "")} ${JSON.stringify(prepared.subject["metadata"] ?? {})} (${prepared.operation}): ruled out by the index, but gave ${response.rules.map((r) => `${r.rule}=${r.status}`).join(", ")}`,
      );
  };
  return {
    ...engine,
    compile: (doc, options) => {
      const outcome = engine.compile(doc, options);
      if (outcome.ok) tally.policies.push(outcome.policy);
      return outcome;
    },
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

/** Requests kept from earlier suites for the next suite's cross product. */
const POOLED = 8;

/** Every policy the suite compiled against every request it evaluated (and the last POOLED of earlier suites), as each operation. */
function crossProduct(suite: string, tally: Tally): void {
  const probe: Tally = { policies: [], requests: [], evaluated: 0, ruledOut: 0, withResults: 0, differences: [] };
  const engine = checked(offlineEngine(), `${suite} (cross product)`, probe);
  for (const request of tally.requests)
    for (const operation of ["CREATE", "UPDATE", "DELETE"] as const) {
      const r: EngineRequest =
        operation === request.operation
          ? request
          : operation === "DELETE"
            ? { ...request, operation, oldResource: request.oldResource ?? request.resource }
            : { ...request, operation };
      for (const policy of tally.policies) {
        try {
          engine.validate(policy, r);
          engine.mutate(policy, r);
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
