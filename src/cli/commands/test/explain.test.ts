/** `bylaw test --explain`: each suite's explanations after its table, and in -o json. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";

const SUITE = "examples/tests";

async function run(...flags: string[]) {
  const io = recordingIo();
  const code = await main(["test", SUITE, ...flags], io);
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n") };
}

describe("bylaw test --explain", () => {
  test("table: the suite's table, then how the failing row came about", async () => {
    const plain = await run();
    const { code, out } = await run("--explain");
    assert.equal(code, plain.code, "explaining changes no verdict");
    assert.ok(out.startsWith(plain.out.slice(0, plain.out.indexOf("\n\n"))), "the loading lines come first, unchanged");
    assert.match(
      out,
      /explain: ClusterPolicy require-team-label on Pod shop\/debug \(CREATE\)\n {2}rule check-team: fail\n {4}match: match\.any\[0\] selected it; no exclude\n {4}failed at \/metadata\/labels\/: found \(absent\), the pattern wants/,
    );
    assert.match(
      out,
      /explain: ClusterPolicy disallow-latest-tag on Pod shop\/debug[^]*?deny conditions: denied\n {6}any\[0\] \["latest"\] AnyIn \["latest"\] → true/,
    );
    assert.doesNotMatch(plain.out, /explain:/);
  });

  test("bylaw-json: each suite carries its explanations", async () => {
    const { out } = await run("--explain", "-o", "bylaw-json");
    const doc = JSON.parse(out) as { suites: { explanations?: { policy: string; resource: string }[] }[] };
    const explanations = doc.suites[0]?.explanations ?? [];
    assert.ok(explanations.some((e) => e.policy === "limit-replicas" && e.resource === "Deployment prod-eu/api"));
    const plain = JSON.parse((await run("-o", "bylaw-json")).out) as { suites: object[] };
    assert.equal("explanations" in (plain.suites[0] ?? {}), false);
  });

  test("Kyverno's json, yaml and markdown, and junit, refuse it (exit 2)", async () => {
    for (const format of ["json", "yaml", "markdown", "junit"]) {
      const { code, err } = await run("--explain", "-o", format);
      assert.equal(code, 2);
      assert.match(err, new RegExp(`--explain prints with the table, bylaw-json or bylaw-yaml output, not ${format}`));
    }
  });
});
