import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { evaluatePodSecurity } from "./evaluate-pod-security.js";
import { container, describeOutcome, restrictedPod, rule } from "../../../test/support/pod-security.js";

const baseline = rule("baseline");
const APPARMOR = "container.apparmor.security.beta.kubernetes.io/app";

interface Case {
  readonly name: string;
  readonly resource: JsonObject;
  /** `id: reason | detail | field errors` of each failing check; empty for a pass. */
  readonly expected: readonly string[];
}

const cases: readonly Case[] = [
  { name: "a plain pod passes", resource: restrictedPod(), expected: [] },
  {
    name: "Host Namespaces: hostNetwork and hostPID",
    resource: restrictedPod({ hostNetwork: true, hostPID: true, hostIPC: false }),
    expected: [
      "hostNamespaces: host namespaces | hostNetwork=true, hostPID=true | spec.hostNetwork is forbidden, forbidden values found: true, spec.hostPID is forbidden, forbidden values found: true",
    ],
  },
  {
    name: "Host Namespaces: false is allowed",
    resource: restrictedPod({ hostNetwork: false, hostIPC: false }),
    expected: [],
  },
  {
    name: "Privileged Containers: init container first, then containers",
    resource: restrictedPod({
      initContainers: [{ name: "init", image: "busybox", securityContext: { privileged: true } }],
      containers: [container({}, { privileged: true })],
    }),
    expected: [
      'privileged: privileged | containers "init", "app" must not set securityContext.privileged=true | spec.initContainers[0].securityContext.privileged is forbidden, forbidden values found: true, spec.containers[0].securityContext.privileged is forbidden, forbidden values found: true',
    ],
  },
  {
    name: "Privileged Containers: false is allowed",
    resource: restrictedPod({ containers: [container({}, { privileged: false })] }),
    expected: [],
  },
  {
    name: "Capabilities: only the default set may be added",
    resource: restrictedPod({
      containers: [container({}, { capabilities: { add: ["SYS_ADMIN", "NET_ADMIN", "CHOWN"] } })],
    }),
    expected: [
      'capabilities_baseline: non-default capabilities | container "app" must not include "NET_ADMIN", "SYS_ADMIN" in securityContext.capabilities.add | spec.containers[0].securityContext.capabilities.add is forbidden, forbidden values found: [NET_ADMIN SYS_ADMIN]',
    ],
  },
  {
    name: "Capabilities: CHOWN and NET_BIND_SERVICE pass",
    resource: restrictedPod({ containers: [container({}, { capabilities: { add: ["CHOWN", "NET_BIND_SERVICE"] } })] }),
    expected: [],
  },
  {
    name: "HostPath Volumes: no path, so no bad value to name",
    resource: restrictedPod({ volumes: [{ name: "data", hostPath: {} }] }),
    expected: ['hostPathVolumes: hostPath volumes | volume "data" | spec.volumes[0].hostPath: Forbidden'],
  },
  {
    name: "HostPath Volumes",
    resource: restrictedPod({
      volumes: [
        { name: "cfg", configMap: { name: "c" } },
        { name: "data", hostPath: { path: "/var" } },
      ],
    }),
    expected: [
      'hostPathVolumes: hostPath volumes | volume "data" | spec.volumes[1].hostPath is forbidden, forbidden values found: /var',
    ],
  },
  {
    name: "Host Ports: every non-zero hostPort",
    resource: restrictedPod({
      containers: [
        container({
          ports: [
            { containerPort: 80, hostPort: 8080 },
            { containerPort: 443, hostPort: 443 },
          ],
        }),
      ],
    }),
    expected: [
      'hostPorts: hostPort | container "app" uses hostPorts 443, 8080 | spec.containers[0].ports[0].hostPort is forbidden, forbidden values found: 8080, spec.containers[0].ports[1].hostPort is forbidden, forbidden values found: 443',
    ],
  },
  {
    name: "Host Ports: hostPort 0 is allowed",
    resource: restrictedPod({ containers: [container({ ports: [{ containerPort: 80, hostPort: 0 }] })] }),
    expected: [],
  },
  {
    name: "AppArmor: a forbidden annotation (reported under spec.template.metadata, as Kyverno does for every kind)",
    resource: restrictedPod({}, { annotations: { [APPARMOR]: "unconfined" } }),
    expected: [
      `appArmorProfile: forbidden AppArmor profile | annotation must not set AppArmor profile type to "${APPARMOR}="unconfined"" | spec.template.metadata.annotations[${APPARMOR}] is forbidden, forbidden values found: unconfined`,
    ],
  },
  {
    name: "AppArmor: pod and container appArmorProfile fields",
    resource: restrictedPod({
      securityContext: { appArmorProfile: { type: "Unconfined" } },
      containers: [container({}, { appArmorProfile: { type: "Unconfined" } })],
    }),
    expected: [
      'appArmorProfile: forbidden AppArmor profile | pod and container "app" must not set AppArmor profile type to "Unconfined" | spec.securityContext.appArmorProfile.type is forbidden, forbidden values found: Unconfined, spec.containers[0].securityContext.appArmorProfile.type is forbidden, forbidden values found: Unconfined',
    ],
  },
  {
    name: "AppArmor: runtime/default, localhost/* and RuntimeDefault pass",
    resource: restrictedPod(
      { containers: [container({}, { appArmorProfile: { type: "RuntimeDefault" } })] },
      { annotations: { [APPARMOR]: "localhost/mine", other: "x" } },
    ),
    expected: [],
  },
  {
    name: "SELinux: type, user and role",
    resource: restrictedPod({
      securityContext: { seLinuxOptions: { type: "spc_t", user: "u" } },
      containers: [container({}, { seLinuxOptions: { role: "r" } })],
    }),
    expected: [
      'seLinuxOptions: seLinuxOptions | pod and container "app" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set | spec.securityContext.seLinuxOptions.type is forbidden, forbidden values found: spc_t, spec.securityContext.seLinuxOptions.user is forbidden, forbidden values found: u, spec.containers[0].securityContext.seLinuxOptions.role is forbidden, forbidden values found: r',
    ],
  },
  {
    name: "SELinux: container_t and (latest) container_engine_t pass",
    resource: restrictedPod({
      securityContext: { seLinuxOptions: { type: "container_t", level: "s0:c1" } },
      containers: [container({}, { seLinuxOptions: { type: "container_engine_t" } })],
    }),
    expected: [],
  },
  {
    name: "/proc Mount Type",
    resource: restrictedPod({ containers: [container({}, { procMount: "Unmasked" })] }),
    expected: [
      'procMount: procMount | container "app" must not set securityContext.procMount to "Unmasked" | spec.containers[0].securityContext.procMount is forbidden, forbidden values found: Unmasked',
    ],
  },
  {
    name: "/proc Mount Type: Default passes",
    resource: restrictedPod({ containers: [container({}, { procMount: "Default" })] }),
    expected: [],
  },
  {
    name: "Seccomp: Unconfined is forbidden",
    resource: restrictedPod({ containers: [container({}, { seccompProfile: { type: "Unconfined" } })] }),
    expected: [
      'seccompProfile_baseline: seccompProfile | container "app" must not set securityContext.seccompProfile.type to "Unconfined" | spec.containers[0].securityContext.seccompProfile.type is forbidden, forbidden values found: Unconfined',
    ],
  },
  {
    name: "Seccomp: no profile at all passes baseline",
    resource: restrictedPod({ containers: [{ name: "app", image: "nginx" }] }),
    expected: [],
  },
  {
    name: "Sysctls: only the safe set",
    resource: restrictedPod({
      securityContext: {
        sysctls: [
          { name: "kernel.msgmax", value: "1" },
          { name: "net.ipv4.tcp_syncookies", value: "1" },
        ],
      },
    }),
    expected: [
      "sysctls: forbidden sysctls | kernel.msgmax | spec.securityContext.sysctls[0].name is forbidden, forbidden values found: kernel.msgmax",
    ],
  },
  {
    name: "HostProcess: pod and container",
    resource: restrictedPod({
      securityContext: { windowsOptions: { hostProcess: true } },
      containers: [container({}, { windowsOptions: { hostProcess: true } })],
    }),
    expected: [
      'windowsHostProcess: hostProcess | pod and container "app" must not set securityContext.windowsOptions.hostProcess=true | spec.securityContext.windowsOptions.hostProcess is forbidden, forbidden values found: true, spec.containers[0].securityContext.windowsOptions.hostProcess is forbidden, forbidden values found: true',
    ],
  },
  {
    name: "Host probes (v1.34, in latest): a probe host",
    resource: restrictedPod({
      containers: [
        container({
          livenessProbe: { httpGet: { host: "10.0.0.1", port: 80 } },
          lifecycle: { preStop: { httpGet: { host: "", port: 1 } } },
        }),
      ],
    }),
    expected: [
      'hostProbesAndHostLifecycle: probe or lifecycle host | container "app" uses probe or lifecycle host "10.0.0.1" | spec.containers[0].livenessProbe.httpGet.host is forbidden, forbidden values found: 10.0.0.1',
    ],
  },
];

describe("baseline controls (latest)", () => {
  for (const c of cases) {
    test(c.name, () => {
      const outcome = evaluatePodSecurity(baseline, c.resource);
      assert.deepEqual(describeOutcome(outcome), c.expected);
      assert.equal(outcome.allowed, c.expected.length === 0);
    });
  }

  test("baseline ignores the restricted-only controls", () => {
    const outcome = evaluatePodSecurity(
      baseline,
      restrictedPod({
        containers: [{ name: "app", image: "nginx", securityContext: { runAsUser: 0 } }],
        volumes: [{ name: "n", nfs: { server: "s", path: "/" } }],
      }),
    );
    assert.deepEqual(outcome.checks, []);
  });

  test("checks come in pod-security-admission's order", () => {
    const resource = restrictedPod({
      hostIPC: true,
      securityContext: { sysctls: [{ name: "kernel.x" }] },
      containers: [container({}, { privileged: true, procMount: "Unmasked" })],
    });
    assert.deepEqual(
      evaluatePodSecurity(baseline, resource).checks.map((c) => c.id),
      ["hostNamespaces", "privileged", "procMount", "sysctls"],
    );
  });
});
