/**
 * Differential test of the work the rules of one request share (issue 39: context/shared-conditions.ts,
 * the fast pass's pattern outcomes, CompiledRule `shareKey`) over the whole conformance corpus
 * (../shared/conformance/kyverno-policies). Every suite runs as `bylaw test` runs it, keeping the
 * policies it compiled and the requests it evaluated; then each request, as CREATE, UPDATE and
 * DELETE, is evaluated by the suite's policies, the policies of the suites just before it, and a
 * renamed copy of each, one after another against one prepared request, as the webhook and the
 * background scan do. Each answer must be the one the policy gives on a request of its own, and a
 * copy's the original's. The requests go without the suites' per-rule values (looked up by policy
 * name, a copy would have none); the engine's tests cover those. The test fails on the first difference, naming the suite, policy and
 * resource. Skipped when the corpus is not there.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { offlineEngine } from "../../src/cli/offline/offline-engine.js";
import { runSuites } from "../../src/cli/test-suite/run-suite.js";
import type {
  CompiledPolicy,
  Engine,
  EngineRequest,
  JsonObject,
  PreparedRequest,
  RequestInput,
} from "../../src/engine/index.js";
import { readManifest } from "./manifest.js";
import { keepingCompiled } from "./keeping-compiled.js";
import { asOperation } from "./as-operation.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const corpus =
  process.env["BYLAW_CONFORMANCE_DIR"] ?? resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");

/** Policies kept from earlier suites, so that each request meets rules of other suites too. */
const POOLED = 24;

interface Seen {
  policies: CompiledPolicy[];
  requests: EngineRequest[];
}

function isPrepared(r: RequestInput): r is PreparedRequest {
  return typeof (r as Partial<PreparedRequest>).derived === "function";
}

/** The engine `bylaw test` uses, keeping what the suite compiled and asked (the caller's request of a prepared one). */
function keeping(engine: Engine, seen: Seen): Engine {
  return {
    ...keepingCompiled(engine, (p) => seen.policies.push(p)),
    validate: (policy, request, interruption) => {
      const asked = isPrepared(request) ? request.request : request;
      if (!seen.requests.includes(asked)) seen.requests.push(asked);
      return engine.validate(policy, request, interruption);
    },
  };
}

/** The policy compiled again under another name; undefined for a kind without a kyverno.io document. */
function renamed(engine: Engine, policy: CompiledPolicy): CompiledPolicy | undefined {
  if (policy.language !== "kyverno") return undefined;
  const doc = policy.document as unknown as JsonObject;
  const metadata = { ...(doc["metadata"] as JsonObject), name: `${policy.name}-copy` };
  const outcome = engine.compile({ ...doc, metadata });
  return outcome.ok ? outcome.policy : undefined;
}

/** The request without the CLI's per-rule values. */
const withoutValues = ({
  ruleVariables: _values,
  ruleForeachValues: _foreach,
  ...rest
}: EngineRequest): EngineRequest => rest;

function answer(engine: Engine, policy: CompiledPolicy, request: RequestInput): string {
  try {
    return JSON.stringify(engine.validate(policy, request).rules);
  } catch (e) {
    return `threw ${String(e)}`;
  }
}

test(
  "rules evaluated against one prepared request answer as on requests of their own, over the whole conformance corpus",
  { skip: existsSync(join(corpus, "MANIFEST.tsv")) ? false : `no corpus at ${corpus}` },
  async () => {
    const manifest = await readManifest(join(corpus, "MANIFEST.tsv"));
    const engine = offlineEngine();
    const differences: string[] = [];
    let pool: CompiledPolicy[] = [];
    let evaluated = 0;
    let withResults = 0;
    for (const entry of manifest) {
      const seen: Seen = { policies: [], requests: [] };
      const file = join(corpus, entry.suiteDir, ".kyverno-test", "kyverno-test.yaml");
      await runSuites(file, (spec, cluster) => keeping(offlineEngine(spec, cluster), seen), entry.suiteDir);
      const policies = [...seen.policies, ...pool];
      const copies = policies.map((p) => renamed(engine, p));
      // Without the CLI's per-rule values, which are looked up by policy name (a copy would have none).
      for (const request of seen.requests.map(withoutValues))
        for (const operation of ["CREATE", "UPDATE", "DELETE"] as const) {
          const r = asOperation(request, operation);
          const prepared = engine.prepare(r);
          policies.forEach((policy, i) => {
            const alone = answer(engine, policy, { ...r });
            const together = answer(engine, policy, prepared);
            const copy = copies[i];
            const copied = copy === undefined ? alone : answer(engine, copy, prepared);
            evaluated++;
            if (alone !== "[]") withResults++;
            if (together !== alone || copied !== alone)
              differences.push(
                `${entry.suiteDir}: ${policy.name} on ${JSON.stringify(prepared.subject["metadata"] ?? {})} (${operation}): alone ${alone}, together ${together}, its copy ${copied}`,
              );
          });
          if (differences.length > 0) assert.fail(differences[0]);
        }
      pool = [...seen.policies, ...pool].slice(0, POOLED);
    }
    console.log(
      `shared work over ${manifest.length} suites: ${evaluated} evaluations (each alone, together and as a copy), ${withResults} with results`,
    );
    assert.ok(withResults > 1000, `${withResults} evaluations with results`);
  },
);
