import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { evaluatePodSecurity } from "./evaluate-pod-security.js";
import { container, describeOutcome, failing, restrictedPod, rule } from "../../../test/support/pod-security.js";

const restricted = rule("restricted");

interface Case {
  readonly name: string;
  readonly resource: JsonObject;
  readonly expected: readonly string[];
}

const cases: readonly Case[] = [
  { name: "a compliant pod passes", resource: restrictedPod(), expected: [] },
  {
    name: "Privilege Escalation: unset in a securityContext is forbidden with the value nil (Kyverno's pod-security-admission fork)",
    resource: restrictedPod({ containers: [container({}, { allowPrivilegeEscalation: null })] }),
    expected: [
      'allowPrivilegeEscalation: allowPrivilegeEscalation != false | container "app" must set securityContext.allowPrivilegeEscalation=false | spec.containers[0].securityContext.allowPrivilegeEscalation is forbidden, forbidden values found: nil',
    ],
  },
  {
    name: "Privilege Escalation: no securityContext at all is required",
    resource: restrictedPod({ containers: [{ name: "app", image: "nginx" }] }),
    expected: [
      'allowPrivilegeEscalation: allowPrivilegeEscalation != false | container "app" must set securityContext.allowPrivilegeEscalation=false | spec.containers[0].securityContext.allowPrivilegeEscalation: Required value',
      'capabilities_restricted: unrestricted capabilities | container "app" must set securityContext.capabilities.drop=["ALL"] | spec.containers[0].securityContext.capabilities.drop: Required value',
      'runAsNonRoot: runAsNonRoot != true | pod or container "app" must set securityContext.runAsNonRoot=true | spec.containers[0].securityContext.runAsNonRoot: Required value',
      'seccompProfile_restricted: seccompProfile | pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost" | spec.containers[0].securityContext.seccompProfile.type: Required value',
    ],
  },
  {
    name: "Privilege Escalation: true is forbidden",
    resource: restrictedPod({ containers: [container({}, { allowPrivilegeEscalation: true })] }),
    expected: [
      'allowPrivilegeEscalation: allowPrivilegeEscalation != false | container "app" must set securityContext.allowPrivilegeEscalation=false | spec.containers[0].securityContext.allowPrivilegeEscalation is forbidden, forbidden values found: true',
    ],
  },
  {
    name: "Capabilities: drop ALL is required",
    resource: restrictedPod({ containers: [container({}, { capabilities: { drop: ["NET_RAW"] } })] }),
    expected: [
      'capabilities_restricted: unrestricted capabilities | container "app" must set securityContext.capabilities.drop=["ALL"] | spec.containers[0].securityContext.capabilities.drop is forbidden, forbidden values found: [NET_RAW]',
    ],
  },
  {
    name: "Capabilities: only NET_BIND_SERVICE may be added (baseline check fails too)",
    resource: restrictedPod({
      containers: [container({}, { capabilities: { drop: ["ALL"], add: ["SYS_TIME", "NET_BIND_SERVICE"] } })],
    }),
    expected: [
      'capabilities_baseline: non-default capabilities | container "app" must not include "SYS_TIME" in securityContext.capabilities.add | spec.containers[0].securityContext.capabilities.add is forbidden, forbidden values found: [SYS_TIME]',
      'capabilities_restricted: unrestricted capabilities | container "app" must not include "SYS_TIME" in securityContext.capabilities.add | spec.containers[0].securityContext.capabilities.add is forbidden, forbidden values found: [SYS_TIME]',
    ],
  },
  {
    name: "Capabilities: drop ALL and add NET_BIND_SERVICE pass",
    resource: restrictedPod({
      containers: [container({}, { capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] } })],
    }),
    expected: [],
  },
  {
    name: "Volume Types: nfs",
    resource: restrictedPod({ volumes: [{ name: "share", nfs: { server: "s", path: "/" } }] }),
    expected: [
      'restrictedVolumes: restricted volume types | volume "share" uses restricted volume type "nfs" | spec.volumes[0].nfs: Forbidden',
    ],
  },
  {
    name: "Volume Types: hostPath fails both the baseline and the restricted check",
    resource: restrictedPod({ volumes: [{ name: "h", hostPath: { path: "/" } }] }),
    expected: [
      'hostPathVolumes: hostPath volumes | volume "h" | spec.volumes[0].hostPath is forbidden, forbidden values found: /',
      'restrictedVolumes: restricted volume types | volume "h" uses restricted volume type "hostPath" | spec.volumes[0].hostPath: Forbidden',
    ],
  },
  {
    name: "Volume Types: configMap, secret, emptyDir, projected, csi, pvc, ephemeral, downwardAPI and image pass",
    resource: restrictedPod({
      volumes: [
        "configMap",
        "secret",
        "emptyDir",
        "projected",
        "csi",
        "persistentVolumeClaim",
        "ephemeral",
        "downwardAPI",
        "image",
      ].map((t) => ({ name: t, [t]: {} })),
    }),
    expected: [],
  },
  {
    name: "Running as Non-root: unset on pod and container",
    resource: restrictedPod({ containers: [container({}, { runAsNonRoot: null })] }),
    expected: [
      'runAsNonRoot: runAsNonRoot != true | pod or container "app" must set securityContext.runAsNonRoot=true | spec.containers[0].securityContext.runAsNonRoot: Required value',
    ],
  },
  {
    name: "Running as Non-root: false on a container, even with true on the pod",
    resource: restrictedPod({
      securityContext: { runAsNonRoot: true },
      containers: [container({}, { runAsNonRoot: false })],
    }),
    expected: [
      'runAsNonRoot: runAsNonRoot != true | container "app" must not set securityContext.runAsNonRoot=false | spec.containers[0].securityContext.runAsNonRoot is forbidden, forbidden values found: false',
    ],
  },
  {
    name: "Running as Non-root: set on the pod only",
    resource: restrictedPod({
      securityContext: { runAsNonRoot: true },
      containers: [container({}, { runAsNonRoot: null })],
    }),
    expected: [],
  },
  {
    name: "Running as Non-root user: runAsUser 0",
    resource: restrictedPod({ securityContext: { runAsUser: 0 }, containers: [container({}, { runAsUser: 1000 })] }),
    expected: [
      "runAsUser: runAsUser=0 | pod must not set runAsUser=0 | spec.securityContext.runAsUser is forbidden, forbidden values found: 0",
    ],
  },
  {
    name: "Seccomp: unset on pod and container",
    resource: restrictedPod({ containers: [container({}, { seccompProfile: null })] }),
    expected: [
      'seccompProfile_restricted: seccompProfile | pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost" | spec.containers[0].securityContext.seccompProfile.type: Required value',
    ],
  },
  {
    name: "Seccomp: Unconfined on the pod fails baseline and restricted",
    resource: restrictedPod({
      securityContext: { seccompProfile: { type: "Unconfined" } },
      containers: [container({}, { seccompProfile: null })],
    }),
    expected: [
      'seccompProfile_baseline: seccompProfile | pod must not set securityContext.seccompProfile.type to "Unconfined" | spec.securityContext.seccompProfile.type is forbidden, forbidden values found: Unconfined',
      'seccompProfile_restricted: seccompProfile | pod must not set securityContext.seccompProfile.type to "Unconfined" | spec.securityContext.seccompProfile.type is forbidden, forbidden values found: Unconfined',
    ],
  },
  {
    name: "Seccomp: Localhost on the pod passes",
    resource: restrictedPod({
      securityContext: { seccompProfile: { type: "Localhost", localhostProfile: "p.json" } },
      containers: [container({}, { seccompProfile: null })],
    }),
    expected: [],
  },
];

describe("restricted controls (latest)", () => {
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(describeOutcome(evaluatePodSecurity(restricted, c.resource)), c.expected));
  }

  test("privileged is not special-cased by Kyverno: it runs every check, like restricted", () => {
    assert.deepEqual(
      failing(rule("privileged"), restrictedPod({ hostPID: true, containers: [{ name: "a", image: "x" }] })),
      [
        "allowPrivilegeEscalation",
        "capabilities_restricted",
        "hostNamespaces",
        "runAsNonRoot",
        "seccompProfile_restricted",
      ],
    );
  });
});

describe("versions", () => {
  const windows = restrictedPod({
    os: { name: "windows" },
    containers: [{ name: "app", image: "mcr/app", securityContext: { runAsNonRoot: true } }],
  });

  test("Windows pods are exempt from privilege escalation, capabilities and seccomp in latest", () => {
    assert.deepEqual(failing(restricted, windows), []);
  });

  test("before v1.25 the Windows exemption does not exist", () => {
    assert.deepEqual(failing(rule("restricted", "v1.24"), windows), [
      "allowPrivilegeEscalation",
      "capabilities_restricted",
      "seccompProfile_restricted",
    ]);
  });

  test("a pinned version runs the older versions of a check too (Kyverno's evaluatePSS)", () => {
    assert.deepEqual(failing(rule("restricted", "v1.25"), windows), [
      "allowPrivilegeEscalation",
      "capabilities_restricted",
      "seccompProfile_restricted",
    ]);
    const linux = restrictedPod({ containers: [container({}, { allowPrivilegeEscalation: null })] });
    assert.deepEqual(failing(rule("restricted", "v1.29"), linux), [
      "allowPrivilegeEscalation",
      "allowPrivilegeEscalation",
    ]);
    assert.deepEqual(failing(restricted, linux), ["allowPrivilegeEscalation"]);
  });

  test("runAsUser=0 is checked from v1.23, capabilities from v1.22, seccomp from v1.19", () => {
    const root = restrictedPod({
      securityContext: { runAsUser: 0 },
      containers: [
        { name: "app", image: "x", securityContext: { allowPrivilegeEscalation: false, runAsNonRoot: true } },
      ],
    });
    assert.deepEqual(failing(rule("restricted", "v1.18"), root), []);
    assert.deepEqual(failing(rule("restricted", "v1.21"), root), ["seccompProfile_restricted"]);
    assert.deepEqual(failing(rule("restricted", "v1.22"), root), [
      "capabilities_restricted",
      "seccompProfile_restricted",
    ]);
    assert.deepEqual(failing(rule("restricted", "v1.23"), root), [
      "capabilities_restricted",
      "runAsUser",
      "seccompProfile_restricted",
    ]);
  });

  test("sysctls: the safe set grows with the version; latest uses the newest set", () => {
    const withSysctl = (name: string): JsonObject =>
      restrictedPod({ securityContext: { sysctls: [{ name, value: "1" }] } });
    assert.deepEqual(failing(rule("baseline", "v1.26"), withSysctl("net.ipv4.ip_local_reserved_ports")), ["sysctls"]);
    assert.deepEqual(failing(rule("baseline", "latest"), withSysctl("net.ipv4.ip_local_reserved_ports")), []);
    assert.deepEqual(failing(rule("baseline", "latest"), withSysctl("net.ipv4.tcp_rmem")), []);
    // pinned: the v1.0 and v1.27 sets still apply next to the v1.29 one
    assert.deepEqual(failing(rule("baseline", "v1.29"), withSysctl("net.ipv4.tcp_keepalive_time")), [
      "sysctls",
      "sysctls",
    ]);
  });

  test("SELinux container_engine_t is allowed from v1.31 in latest only", () => {
    const engine = restrictedPod({ securityContext: { seLinuxOptions: { type: "container_engine_t" } } });
    assert.deepEqual(failing(rule("baseline", "v1.30"), engine), ["seLinuxOptions"]);
    assert.deepEqual(failing(rule("baseline"), engine), []);
  });

  test("seccomp alpha annotations are checked by pinned versions only", () => {
    const annotated = restrictedPod({}, { annotations: { "seccomp.security.alpha.kubernetes.io/pod": "unconfined" } });
    const outcome = evaluatePodSecurity(rule("baseline", "v1.19"), annotated);
    assert.deepEqual(describeOutcome(outcome), [
      'seccompProfile_baseline: seccompProfile | forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined" | spec.template.metadata.annotations[seccomp.security.alpha.kubernetes.io/pod] is forbidden, forbidden values found: unconfined',
    ]);
    assert.deepEqual(failing(rule("baseline"), annotated), []);
  });

  test("probe and lifecycle hosts are checked from v1.34", () => {
    const probing = restrictedPod({
      containers: [container({ lifecycle: { postStart: { tcpSocket: { host: "db", port: 5432 } } } })],
    });
    assert.deepEqual(failing(rule("baseline", "v1.32"), probing), []);
    assert.deepEqual(failing(rule("baseline", "v1.34"), probing), ["hostProbesAndHostLifecycle"]);
    assert.deepEqual(failing(rule("baseline"), probing), ["hostProbesAndHostLifecycle"]);
  });
});
