/**
 * `bylaw serve` over HTTPS never allows what it did not check: without valid cluster facts or with
 * no policies it is not ready and answers reviews per the webhook's failurePolicy; a policy with its
 * own timeout is served on its timeout group's path, or refused when that group is not registered.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { EventEmitter } from "node:events";
import { serveCommand } from "../../src/cli/commands/serve/command.js";
import { recordingIo } from "../support/fake-io.js";
import { tempTree as freshTree } from "../support/temp-dir.js";
import { pod } from "../support/builders.js";
import { podReview, startServe, type Running } from "./serve-harness.js";
import { policyFixture } from "../support/policy-fixtures.js";

/** A tree whose files were written a minute ago: settled, so serve reads them at once. */
function tempTree(files: Record<string, string>): string {
  const root = freshTree(files);
  const past = new Date(Date.now() - 60_000);
  for (const name of readdirSync(root)) utimesSync(join(root, name), past, past);
  utimesSync(root, past, past);
  return root;
}

const requireTeam = (extraSpec = ""): string =>
  policyFixture("require-team").replace("  rules:\n", `${extraSpec}  rules:\n`);

const teamless = podReview({
  resource: { group: "", version: "v1", resource: "pods" },
  namespace: "shop",
  name: "web",
  object: pod({ name: "web", namespace: "shop" }),
});

type Review = { response: { allowed: boolean; status?: { message: string }; warnings?: string[] } };

async function withServe(args: string[], run: (server: Running) => Promise<void>): Promise<void> {
  const server = await startServe(args);
  try {
    await run(server);
  } finally {
    assert.equal(await server.stop(), 0);
  }
}

describe("bylaw serve fails closed", () => {
  test("invalid cluster facts at startup: not ready, and reviews are denied through Fail webhooks, allowed with a warning through Ignore ones", async () => {
    const facts = join(
      tempTree({ "facts.yaml": "apiVersion: bylaw.dev/v1alpha1\nkind: ClusterFacts\nnamespaces: [shop]\n" }),
      "facts.yaml",
    );
    await withServe(["--policies", tempTree({ "p.yaml": requireTeam() }), "--cluster-facts", facts], async (server) => {
      const ready = await server.get("/health/readiness");
      assert.equal(ready.status, 503);
      assert.match(ready.text, /no cluster facts loaded yet/);
      const fail = (await server.post("/validate/fail", teamless)).json as Review;
      assert.equal(fail.response.allowed, false);
      assert.match(fail.response.status?.message ?? "", /cluster facts .* have not loaded/);
      const mutate = (await server.post("/mutate/fail", teamless)).json as Review;
      assert.equal(mutate.response.allowed, false);
      const ignore = (await server.post("/validate/ignore", teamless)).json as Review;
      assert.equal(ignore.response.allowed, true);
      assert.match(ignore.response.warnings?.[0] ?? "", /have not loaded/);
    });
  });

  test("an empty policy folder: not ready, reviews through Fail webhooks denied; --allow-empty-policies serves none", async () => {
    await withServe(["--policies", tempTree({})], async (server) => {
      const ready = await server.get("/health/readiness");
      assert.equal(ready.status, 503);
      assert.match(ready.text, /no policies in .*--allow-empty-policies/);
      const answer = (await server.post("/validate/fail", teamless)).json as Review;
      assert.equal(answer.response.allowed, false, "no policy set loaded is not a reason to allow");
      assert.match(answer.response.status?.message ?? "", /no policy set has loaded yet/);
      // Each path answers under its own failurePolicy: Fail denies, Ignore allows with the reason as a warning.
      assert.equal(((await server.post("/mutate/fail", teamless)).json as Review).response.allowed, false);
      for (const path of ["/validate/ignore", "/mutate/ignore"]) {
        const ignored = (await server.post(path, teamless)).json as Review;
        assert.equal(ignored.response.allowed, true, path);
        assert.match(ignored.response.warnings?.[0] ?? "", /no policy set has loaded yet/, path);
      }
    });
    await withServe(["--policies", tempTree({}), "--allow-empty-policies"], async (server) => {
      assert.equal((await server.get("/health/readiness")).status, 200);
      assert.equal(((await server.post("/validate/fail", teamless)).json as Review).response.allowed, true);
    });
  });

  test("a policy with its own timeout is refused unless its timeout group is registered, then served on that group's path", async () => {
    const policies = tempTree({ "p.yaml": requireTeam("  webhookConfiguration: {timeoutSeconds: 20}\n") });
    await withServe(["--policies", policies], async (server) => {
      const ready = await server.get("/health/readiness");
      assert.equal(ready.status, 503);
      assert.match(ready.text, /no webhook is registered for the 20s timeout.*--timeout-group 20/);
    });
    await withServe(["--policies", policies, "--timeout-group", "20"], async (server) => {
      assert.equal((await server.get("/health/readiness")).status, 200);
      assert.equal(
        ((await server.post("/validate/fail/timeout-20s", teamless)).json as Review).response.allowed,
        false,
      );
      assert.equal(
        ((await server.post("/validate/fail", teamless)).json as Review).response.allowed,
        true,
        "the 10 s group does not serve it",
      );
    });
  });

  test("bad timeout flags are usage errors", async () => {
    for (const [flags, message] of [
      [["--timeout-group", "10"], /--timeout-group 10 is the default timeout/],
      [["--timeout-seconds", "45"], /--timeout-seconds must be a whole number from 1 to 30/],
    ] as const) {
      const io = recordingIo();
      assert.equal(
        await serveCommand(["--policies", tempTree({}), "--self-signed", ...flags], io, new EventEmitter()),
        2,
      );
      assert.match(io.stderr.join("\n"), message);
    }
  });
});
