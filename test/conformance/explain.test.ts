/**
 * `--explain` over the whole conformance corpus (../shared/conformance/kyverno-policies): every
 * suite runs as `bylaw test --explain` runs it, and each explanation is checked against the
 * evaluation it explains: it never throws, it keeps every rule result the evaluation gave (none
 * dropped, none left without a rule), and a rule that gave a result is explained as matched. The
 * test fails naming the suite, policy and resource of each difference. Skipped without the corpus.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { offlineEngine } from "../../src/cli/offline/offline-engine.js";
import { runSuites } from "../../src/cli/test-suite/run-suite.js";
import type { Engine } from "../../src/engine/index.js";
import { readManifest } from "./manifest.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const corpus =
  process.env["BYLAW_CONFORMANCE_DIR"] ?? resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");

interface Tally {
  explained: number;
  results: number;
  differences: string[];
}

/** The engine `bylaw test` uses, each explanation checked against the results it was given. */
function checked(engine: Engine, suite: string, tally: Tally): Engine {
  return {
    ...engine,
    explain: (policy, request, results) => {
      const where = `${suite}: ${policy.name} on ${JSON.stringify(request).match(/"name":"[^"]*"/)?.[0] ?? "?"}`;
      let explanation;
      try {
        explanation = engine.explain(policy, request, results);
      } catch (e) {
        tally.differences.push(`${where}: explain threw ${(e as Error).stack ?? String(e)}`);
        throw e;
      }
      tally.explained++;
      tally.results += results.length;
      const kept = explanation.rules.reduce((n, r) => n + r.results.length, 0);
      if (kept !== results.length) tally.differences.push(`${where}: ${results.length} results, ${kept} explained`);
      for (const rule of explanation.rules) {
        if (rule.results.length > 0 && !rule.match.matched)
          tally.differences.push(`${where}: rule ${rule.rule} gave a result but is explained as ${rule.match.reason}`);
        if (rule.match.reason.startsWith("the evaluation gave these results"))
          tally.differences.push(`${where}: results under ${JSON.stringify(rule.rule)}, which no rule carries`);
      }
      return explanation;
    },
  };
}

test(
  "--explain keeps every result and explains every rule that gave one as matched, over the whole corpus",
  { skip: existsSync(join(corpus, "MANIFEST.tsv")) ? false : `no corpus at ${corpus}` },
  async () => {
    const tally: Tally = { explained: 0, results: 0, differences: [] };
    const manifest = await readManifest(join(corpus, "MANIFEST.tsv"));
    for (const entry of manifest) {
      const file = join(corpus, entry.suiteDir, ".kyverno-test", "kyverno-test.yaml");
      await runSuites(
        file,
        (spec, cluster) => checked(offlineEngine(spec, cluster), entry.suiteDir, tally),
        entry.suiteDir,
        {
          explain: true,
        },
      );
    }
    console.log(`# explained ${tally.explained} policy/resource pairs with ${tally.results} results`);
    assert.ok(tally.explained > 1000, `only ${tally.explained} explanations: the suites did not run`);
    assert.deepEqual(tally.differences.slice(0, 20), [], `${tally.differences.length} differences`);
  },
);
