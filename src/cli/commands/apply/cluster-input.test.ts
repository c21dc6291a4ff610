/** `bylaw apply --cluster` without a cluster to talk to: flags, `-r` meanings, and the errors that name the problem (test/cluster/apply-cluster.cluster-test.ts runs it against a real API server). */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";
import { splitResourceArgs } from "./cluster-input.js";
import { parseApplyArgs } from "./options.js";
import { policyFixture } from "../../../../test/support/policy-fixtures.js";

const policy = policyFixture("require-team");

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

describe("bylaw apply --cluster: flags and errors", () => {
  test("--cluster stands in for -r; -n, --kubeconfig and --context need --cluster", () => {
    const ok = parseApplyArgs(["p.yaml", "--cluster", "-n", "shop", "--context", "dev", "--kubeconfig", "kc"]);
    assert.equal(ok.kind, "run");
    assert.deepEqual(ok.kind === "run" ? ok.options.cluster : undefined, {
      kubeconfig: "kc",
      context: "dev",
      namespace: "shop",
      clusterWide: false,
      showPerformance: false,
    });
    const wide = parseApplyArgs(["p.yaml", "--cluster", "--cluster-wide-resources", "--show-performance"]);
    assert.deepEqual(wide.kind === "run" ? wide.options.cluster : undefined, {
      clusterWide: true,
      showPerformance: true,
    });
    const offline = parseApplyArgs(["p.yaml", "-r", "r.yaml", "--cluster-wide-resources", "--show-performance"]);
    assert.deepEqual(offline.kind === "run" ? offline.warnings : [], [
      "warning: --cluster-wide-resources has no effect without --cluster (it is about reading the cluster's objects)",
      "warning: --show-performance has no effect without --cluster (it is about reading the cluster's objects)",
    ]);
    const noResources = parseApplyArgs(["p.yaml"]);
    assert.ok(
      noResources.kind === "usage-error" &&
        /-r RESOURCE \(or --cluster, or --json PAYLOAD, or --http-payload REQUEST, or --envoy-payload REQUEST\)/.test(
          noResources.message,
        ),
    );
    const stray = parseApplyArgs(["p.yaml", "-r", "r.yaml", "-n", "shop"]);
    assert.ok(stray.kind === "usage-error" && /--namespace needs --cluster/.test(stray.message));
  });

  test("with --cluster, an -r value that is a file, folder or - is read; anything else names objects", () => {
    const dir = tempTree({ "r.yaml": "kind: Pod\n" });
    assert.deepEqual(splitResourceArgs([join(dir, "r.yaml"), dir, "-", "nginx", "web-1"]), {
      paths: [join(dir, "r.yaml"), dir, "-"],
      names: ["nginx", "web-1"],
    });
  });

  test("an API server that does not answer is exit 2 naming the server, the kubeconfig and the context", async () => {
    const port = await closedPort();
    const dir = tempTree({
      "p.yaml": policy,
      kc: `apiVersion: v1\nkind: Config\ncurrent-context: dev\ncontexts: [{name: dev, context: {cluster: c, user: u}}]\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {token: t}}]\n`,
    });
    const io = recordingIo();
    assert.equal(await main(["apply", join(dir, "p.yaml"), "--cluster", "--kubeconfig", join(dir, "kc")], io), 2);
    const stderr = io.stderr.join("\n");
    assert.match(
      stderr,
      new RegExp(
        `--cluster: cannot read the API server's discovery at https://127\\.0\\.0\\.1:${port} \\(kubeconfig .*kc, context dev\\): no answer from the API server: GET /api(s|/v1): connect ECONNREFUSED`,
      ),
    );
  });

  test("a kubeconfig that cannot be read, or a context it does not define, is exit 2 naming it", async () => {
    const dir = tempTree({
      "p.yaml": policy,
      kc: "apiVersion: v1\nkind: Config\ncurrent-context: dev\ncontexts: [{name: dev, context: {cluster: c}}]\nclusters: [{name: c, cluster: {server: https://127.0.0.1:1}}]\n",
    });
    const missing = recordingIo();
    assert.equal(
      await main(["apply", join(dir, "p.yaml"), "--cluster", "--kubeconfig", join(dir, "nope")], missing),
      2,
    );
    assert.match(missing.stderr.join("\n"), /error: --cluster: kubeconfig .*nope: ENOENT/);
    const context = recordingIo();
    assert.equal(
      await main(
        ["apply", join(dir, "p.yaml"), "--cluster", "--kubeconfig", join(dir, "kc"), "--context", "prod"],
        context,
      ),
      2,
    );
    assert.match(context.stderr.join("\n"), /error: --cluster: kubeconfig .*kc: context "prod" is not defined/);
  });
});
