import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { evaluatePodSecurity, UNSUPPORTED_KIND_ERROR } from "./evaluate-pod-security.js";
import { podSecurityMessage, podSecurityProperties } from "./message.js";
import { container, restrictedPod, rule } from "../../../test/support/pod-security.js";

const baseline = rule("baseline");
const podSpec = { hostNetwork: true, containers: [container({}, { privileged: true })] };

describe("podSecurityMessage", () => {
  test("pass", () => {
    assert.equal(
      podSecurityMessage("baseline", baseline, evaluatePodSecurity(baseline, restrictedPod())),
      "Validation rule 'baseline' passed.",
    );
  });

  test("fail lists every check with its reason and field errors", () => {
    assert.equal(
      podSecurityMessage("baseline", baseline, evaluatePodSecurity(baseline, restrictedPod(podSpec))),
      `Validation rule 'baseline' failed. It violates PodSecurity "baseline:latest": ` +
        "(Forbidden reason: host namespaces, field error list: [spec.hostNetwork is forbidden, forbidden values found: true])" +
        "(Forbidden reason: privileged, field error list: [spec.containers[0].securityContext.privileged is forbidden, forbidden values found: true])",
    );
  });

  test("required values and value-less errors use Go's field.Error text; the version is printed as written", () => {
    const ps = rule("restricted", "v1.24");
    const resource = restrictedPod({
      volumes: [{ name: "n", nfs: {} }],
      containers: [container({}, { runAsNonRoot: null })],
    });
    assert.equal(
      podSecurityMessage("restricted", ps, evaluatePodSecurity(ps, resource)),
      `Validation rule 'restricted' failed. It violates PodSecurity "restricted:v1.24": ` +
        "(Forbidden reason: restricted volume types, field error list: [spec.volumes[0].nfs: Forbidden])" +
        "(Forbidden reason: runAsNonRoot != true, field error list: [spec.containers[0].securityContext.runAsNonRoot: Required value])",
    );
    const unversioned = rule("restricted", "");
    assert.match(
      podSecurityMessage("r", unversioned, evaluatePodSecurity(unversioned, resource)),
      /It violates PodSecurity "restricted:": /,
    );
  });
});

describe("pod controllers and CronJobs", () => {
  const template = { metadata: { labels: { app: "a" } }, spec: podSpec };
  const controller = (kind: string): JsonObject => ({
    apiVersion: "apps/v1",
    kind,
    metadata: { name: "d" },
    spec: { template },
  });

  for (const kind of ["Deployment", "DaemonSet", "StatefulSet", "ReplicaSet", "Job", "ReplicationController"]) {
    test(`${kind}: spec.template is checked and fields read spec.template.spec`, () => {
      const outcome = evaluatePodSecurity(baseline, controller(kind));
      assert.deepEqual(
        outcome.checks.flatMap((c) => c.errors.map((e) => e.field)),
        ["spec.template.spec.hostNetwork", "spec.template.spec.containers[0].securityContext.privileged"],
      );
    });
  }

  test("CronJob: spec.jobTemplate.spec.template is checked, with the metadata of spec.jobTemplate", () => {
    const cronJob: JsonObject = {
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name: "c" },
      spec: {
        schedule: "* * * * *",
        jobTemplate: {
          metadata: { annotations: { "container.apparmor.security.beta.kubernetes.io/app": "unconfined" } },
          spec: { template: { metadata: { annotations: {} }, spec: podSpec } },
        },
      },
    };
    const outcome = evaluatePodSecurity(baseline, cronJob);
    assert.deepEqual(
      outcome.checks.flatMap((c) => c.errors.map((e) => e.field)),
      [
        "spec.template.metadata.annotations[container.apparmor.security.beta.kubernetes.io/app]",
        "spec.jobTemplate.spec.template.spec.hostNetwork",
        "spec.jobTemplate.spec.template.spec.containers[0].securityContext.privileged",
      ],
    );
  });

  test("a controller without a template has an empty pod, which passes", () => {
    assert.equal(
      evaluatePodSecurity(rule("restricted"), { kind: "Deployment", metadata: { name: "d" }, spec: {} }).allowed,
      true,
    );
  });

  test("another kind is an error, as in Kyverno", () => {
    const outcome = evaluatePodSecurity(baseline, { kind: "Service", metadata: { name: "s" }, spec: {} });
    assert.deepEqual(outcome, { allowed: false, checks: [], exemptedByExtra: false, error: UNSUPPORTED_KIND_ERROR });
    assert.equal(
      podSecurityMessage("baseline", baseline, outcome),
      "Error while getting new resource: could not find correct resource type",
    );
  });
});

describe("podSecurityProperties", () => {
  test("standard, version, controls and controlsJSON with the images of the named containers", () => {
    const ps = rule("restricted", "latest");
    const resource = restrictedPod({
      hostNetwork: true,
      containers: [
        container({ image: "ghcr.io/acme/api:v2" }, { runAsNonRoot: null }),
        container({ name: "side", image: "busybox@sha256:abc" }, { runAsNonRoot: null }),
      ],
    });
    assert.deepEqual(podSecurityProperties(ps, evaluatePodSecurity(ps, resource)), {
      standard: "restricted",
      version: "latest",
      controls: "hostNamespaces,runAsNonRoot",
      controlsJSON:
        '[{"ID":"hostNamespaces","Name":"Host Namespaces","Images":null},' +
        '{"ID":"runAsNonRoot","Name":"Running as Non-root","Images":["ghcr.io/acme/api:v2","docker.io/busybox@sha256:abc"]}]',
    });
  });

  test("nothing for a pass", () => {
    assert.deepEqual(podSecurityProperties(baseline, evaluatePodSecurity(baseline, restrictedPod())), {});
  });
});
