/** --kyverno-webhook-names: Bylaw refuses to start when a configuration it would write by Kyverno's name is not its own. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { foreignConfigurationProblem, isBylawOwn } from "./foreign-configurations.js";

const wanted = [
  { kind: "ValidatingWebhookConfiguration", name: "kyverno-policy-validating-webhook-cfg" },
  { kind: "ValidatingWebhookConfiguration", name: "kyverno-resource-validating-webhook-cfg" },
  { kind: "MutatingWebhookConfiguration", name: "kyverno-resource-mutating-webhook-cfg" },
] as const;
const labelled = (labels: Record<string, string>) => ({ metadata: { name: "x", labels } });
const bylaw = labelled({ "app.kubernetes.io/name": "bylaw", "app.kubernetes.io/component": "webhook-configuration" });
const kyverno = labelled({ "webhook.kyverno.io/managed-by": "kyverno" });

describe("foreign webhook configurations", () => {
  test("Bylaw's own: labelled app.kubernetes.io/name=bylaw and not managed by Kyverno", () => {
    assert.equal(isBylawOwn(bylaw), true);
    assert.equal(isBylawOwn(kyverno), false);
    assert.equal(isBylawOwn(labelled({})), false);
    assert.equal(
      isBylawOwn(labelled({ "app.kubernetes.io/name": "bylaw", "webhook.kyverno.io/managed-by": "kyverno" })),
      false,
    );
  });

  test("none exists, or all are Bylaw's: Bylaw may start", async () => {
    assert.equal(await foreignConfigurationProblem(wanted, () => Promise.resolve(undefined)), undefined);
    assert.equal(await foreignConfigurationProblem(wanted, () => Promise.resolve(bylaw)), undefined);
  });

  test("Kyverno's configuration exists: the message names it, its labels and what to do", async () => {
    const read = (_kind: string, name: string) =>
      Promise.resolve(name === "kyverno-resource-mutating-webhook-cfg" ? kyverno : bylaw);
    const why = await foreignConfigurationProblem(wanted, read);
    assert.ok(why !== undefined);
    assert.match(
      why,
      /^--kyverno-webhook-names: MutatingWebhookConfiguration kyverno-resource-mutating-webhook-cfg exists and is not Bylaw's \(labels: webhook\.kyverno\.io\/managed-by=kyverno;/,
    );
    assert.match(why, /uninstall Kyverno first/);
    assert.match(why, /or run Bylaw without --kyverno-webhook-names$/);
  });

  test("a configuration that cannot be read stops the start too: whose it is cannot be told", async () => {
    const why = await foreignConfigurationProblem(wanted, () => Promise.reject(new Error("forbidden: cannot get")));
    assert.match(
      why ?? "",
      /^--kyverno-webhook-names: could not read ValidatingWebhookConfiguration kyverno-policy-validating-webhook-cfg to check that it is Bylaw's, not Kyverno's: forbidden: cannot get\. Bylaw needs get on it/,
    );
  });
});
