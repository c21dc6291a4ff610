import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { evaluatePodSecurity } from "./evaluate-pod-security.js";
import { formatFieldError } from "./message.js";
import { container, failing, restrictedPod, rule } from "../../../test/support/pod-security.js";
import type { PodSecurityExclude } from "./types.js";

const SYS_ADMIN = { drop: ["ALL"], add: ["SYS_ADMIN"] };
const capsExclude = (images: string[], extra: Partial<PodSecurityExclude> = {}): PodSecurityExclude[] => [
  { controlName: "Capabilities", images, ...extra },
];

describe("rule exclude entries", () => {
  test("a container-level control is exempted for containers whose image matches a wildcard", () => {
    const ps = rule("restricted", "latest", capsExclude(["ghcr.io/kyverno/test-nginx*", "redis*"]));
    assert.deepEqual(
      failing(
        ps,
        restrictedPod({
          containers: [container({ image: "ghcr.io/kyverno/test-nginx:latest" }, { capabilities: SYS_ADMIN })],
        }),
      ),
      [],
    );
    assert.deepEqual(
      failing(ps, restrictedPod({ containers: [container({ image: "busybox:1.28" }, { capabilities: SYS_ADMIN })] })),
      ["capabilities_baseline", "capabilities_restricted"],
    );
  });

  test("only the matching containers are exempted; the others keep their field errors", () => {
    const ps = rule("baseline", "latest", capsExclude(["redis*"]));
    const outcome = evaluatePodSecurity(
      ps,
      restrictedPod({
        containers: [
          container({ name: "cache", image: "redis:7" }, { capabilities: SYS_ADMIN }),
          container({ name: "web", image: "nginx" }, { capabilities: SYS_ADMIN }),
        ],
      }),
    );
    assert.deepEqual(
      outcome.checks.map((c) => c.errors.map(formatFieldError)),
      [["spec.containers[1].securityContext.capabilities.add is forbidden, forbidden values found: [SYS_ADMIN]"]],
    );
    assert.equal(
      outcome.checks[0]?.detail,
      'containers "cache", "web" must not include "SYS_ADMIN" in securityContext.capabilities.add',
    );
  });

  test("restrictedField + values: exempted only when every forbidden value is listed", () => {
    const ps = rule(
      "baseline",
      "latest",
      capsExclude(["*"], {
        restrictedField: "spec.containers[*].securityContext.capabilities.add",
        values: ["SYS_ADMIN", "NET_*"],
      }),
    );
    assert.deepEqual(
      failing(
        ps,
        restrictedPod({ containers: [container({}, { capabilities: { add: ["SYS_ADMIN", "NET_ADMIN"] } })] }),
      ),
      [],
    );
    assert.deepEqual(
      failing(ps, restrictedPod({ containers: [container({}, { capabilities: { add: ["SYS_ADMIN", "SYS_TIME"] } })] })),
      ["capabilities_baseline"],
    );
  });

  test("restrictedField must name the field of the failing container list", () => {
    const ps = rule(
      "baseline",
      "latest",
      capsExclude(["*"], {
        restrictedField: "spec.initContainers[*].securityContext.capabilities.add",
        values: ["SYS_ADMIN"],
      }),
    );
    assert.deepEqual(failing(ps, restrictedPod({ containers: [container({}, { capabilities: SYS_ADMIN })] })), [
      "capabilities_baseline",
    ]);
  });

  test("a pod-level control is exempted without images", () => {
    const ps = rule("baseline", "latest", [{ controlName: "Host Namespaces" }]);
    assert.deepEqual(
      failing(
        ps,
        restrictedPod({ hostNetwork: true, hostPID: true, containers: [container({}, { privileged: true })] }),
      ),
      ["privileged"],
    );
  });

  test("Sysctls with restrictedField and values wildcards", () => {
    const ps = rule("baseline", "latest", [
      { controlName: "Sysctls", restrictedField: "spec.securityContext.sysctls[*].name", values: ["kernel.msg*"] },
    ]);
    const sysctls = (...names: string[]) =>
      restrictedPod({ securityContext: { sysctls: names.map((name) => ({ name, value: "1" })) } });
    assert.deepEqual(failing(ps, sysctls("kernel.msgmax", "kernel.msgmnb")), []);
    const outcome = evaluatePodSecurity(ps, sysctls("kernel.msgmax", "kernel.sem"));
    assert.deepEqual(outcome.checks[0]?.errors.map(formatFieldError), [
      "spec.securityContext.sysctls[1].name is forbidden, forbidden values found: kernel.sem",
    ]);
  });

  test("the Seccomp control covers both the baseline and the restricted check", () => {
    const unconfined = restrictedPod({
      securityContext: { seccompProfile: { type: "Unconfined" } },
      containers: [container({}, { seccompProfile: null })],
    });
    assert.deepEqual(
      failing(
        rule("restricted", "latest", [{ controlName: "Seccomp" }, { controlName: "Seccomp", images: ["*"] }]),
        unconfined,
      ),
      [],
    );
    assert.deepEqual(failing(rule("restricted"), unconfined), ["seccompProfile_baseline", "seccompProfile_restricted"]);
  });

  test("a pod-level exclusion's `fake` container removes one container error per control (Kyverno quirk)", () => {
    const ps = rule("restricted", "latest", [{ controlName: "Seccomp" }]);
    const noSeccomp = (n: number) =>
      restrictedPod({
        containers: Array.from({ length: n }, (_, i) => container({ name: `c${i}` }, { seccompProfile: null })),
      });
    assert.deepEqual(failing(ps, noSeccomp(1)), []);
    const outcome = evaluatePodSecurity(ps, noSeccomp(2));
    assert.deepEqual(outcome.checks[0]?.errors.map(formatFieldError), [
      "spec.containers[1].securityContext.seccompProfile.type: Required value",
    ]);
  });

  test("an exclusion collapses a check reported twice by a pinned version", () => {
    const resource = restrictedPod({ hostIPC: true, containers: [container({}, { allowPrivilegeEscalation: null })] });
    assert.deepEqual(failing(rule("restricted", "v1.29"), resource), [
      "allowPrivilegeEscalation",
      "allowPrivilegeEscalation",
      "hostNamespaces",
    ]);
    assert.deepEqual(failing(rule("restricted", "v1.29", [{ controlName: "Host Namespaces" }]), resource), [
      "allowPrivilegeEscalation",
    ]);
  });

  test("Privilege Escalation by image", () => {
    const ps = rule("restricted", "latest", [{ controlName: "Privilege Escalation", images: ["*/istio/proxyv2:*"] }]);
    const resource = restrictedPod({
      containers: [
        container(),
        container({ name: "istio-proxy", image: "docker.io/istio/proxyv2:1.20" }, { allowPrivilegeEscalation: true }),
      ],
    });
    assert.deepEqual(failing(ps, resource), []);
  });
});

describe("extra excludes (PolicyException podSecurity entries)", () => {
  const ps = rule("baseline");
  const bad = restrictedPod({
    hostNetwork: true,
    containers: [container({ image: "tools/debug:1" }, { capabilities: SYS_ADMIN })],
  });

  test("removing every failure reports an exemption, not a pass", () => {
    const outcome = evaluatePodSecurity(ps, bad, {
      extraExcludes: [{ controlName: "Host Namespaces" }, { controlName: "Capabilities", images: ["tools/*"] }],
    });
    assert.deepEqual(outcome, { allowed: true, checks: [], exemptedByExtra: true });
  });

  test("partly exempted: the rest still fails", () => {
    const outcome = evaluatePodSecurity(ps, bad, { extraExcludes: [{ controlName: "Host Namespaces" }] });
    assert.equal(outcome.allowed, false);
    assert.equal(outcome.exemptedByExtra, false);
    assert.deepEqual(
      outcome.checks.map((c) => c.id),
      ["capabilities_baseline"],
    );
  });

  test("a pod that passes is a pass, whatever the extra excludes", () => {
    assert.deepEqual(
      evaluatePodSecurity(ps, restrictedPod(), { extraExcludes: [{ controlName: "Host Namespaces" }] }),
      {
        allowed: true,
        checks: [],
        exemptedByExtra: false,
      },
    );
  });

  test("no extra excludes: the failure stands", () => {
    assert.equal(evaluatePodSecurity(ps, bad, { extraExcludes: [] }).checks.length, 2);
  });
});
