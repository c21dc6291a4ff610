/**
 * deploy/base/networkpolicy.yaml, part of the default install: only the API server reaches the
 * webhook port and only Prometheus the metrics port; no rule is open to every source, and the only
 * egress is to the API server. The base alone carries a placeholder that is not a CIDR, so it cannot
 * be applied until an overlay sets the API server's addresses; components/without-networkpolicy removes it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, test } from "node:test";
import { at, kubectlMissing, list, one, render, repoRoot, type Manifest } from "./render.js";

const SKIP = kubectlMissing();
const root = repoRoot();

function rules(policy: Manifest, port: number): unknown[] {
  return list(at(policy, "spec", "ingress")).filter((r) => list(at(r, "ports")).some((p) => at(p, "port") === port));
}

describe("the base's NetworkPolicy", { skip: SKIP ?? false }, () => {
  test("in the example overlay: 9443 from the API server's CIDR only, 8000 from Prometheus only, no open rule, egress to the API server only", () => {
    const policy = one(render(join(root, "deploy", "overlays", "example")), "NetworkPolicy", "bylaw");
    const ingress = list(at(policy, "spec", "ingress"));
    assert.ok(
      ingress.every((r) => list(at(r, "from")).length > 0),
      "every ingress rule names its sources",
    );
    const webhook = rules(policy, 9443).flatMap((r) => list(at(r, "from")));
    assert.deepEqual(webhook, [{ ipBlock: { cidr: "192.0.2.0/28" } }]);
    const metrics = rules(policy, 8000).flatMap((r) => list(at(r, "from")));
    assert.deepEqual(metrics, [
      {
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } },
        podSelector: { matchLabels: { "app.kubernetes.io/name": "prometheus" } },
      },
      { ipBlock: { cidr: "192.0.2.10/32" } },
    ]);
    assert.deepEqual(at(policy, "spec", "egress"), [
      {
        to: [{ ipBlock: { cidr: "192.0.2.0/28" } }],
        ports: [
          { port: 443, protocol: "TCP" },
          { port: 6443, protocol: "TCP" },
        ],
      },
    ]);
  });

  test("the base renders it, and without an overlay's CIDR the rules keep a placeholder that is not a CIDR", () => {
    const policy = one(render(join(root, "deploy", "base")), "NetworkPolicy", "bylaw");
    const cidr = at(rules(policy, 9443)[0], "from", 0, "ipBlock", "cidr");
    assert.equal(cidr, "API_SERVER_CIDR_PLACEHOLDER");
    assert.doesNotMatch(String(cidr), /^[0-9a-f.:]+\/\d+$/);
    assert.equal(at(policy, "spec", "egress", 0, "to", 0, "ipBlock", "cidr"), "API_SERVER_CIDR_PLACEHOLDER");
  });

  test("components/without-networkpolicy removes it, and nothing else", () => {
    const dir = mkdtempSync(join(tmpdir(), "bylaw-np-"));
    try {
      writeFileSync(
        join(dir, "kustomization.yaml"),
        [
          "apiVersion: kustomize.config.k8s.io/v1beta1",
          "kind: Kustomization",
          "resources:",
          `  - ${relative(dir, join(root, "deploy", "base"))}`,
          "components:",
          `  - ${relative(dir, join(root, "deploy", "components", "without-networkpolicy"))}`,
          "",
        ].join("\n"),
      );
      const without = render(dir);
      assert.deepEqual(
        without.filter((m) => m["kind"] === "NetworkPolicy"),
        [],
      );
      assert.equal(without.length, render(join(root, "deploy", "base")).length - 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
