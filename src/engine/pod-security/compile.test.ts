import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { checkPodSecurityExclude, compilePodSecurity } from "./compile.js";

const PATH = "spec.rules[0].validate.podSecurity";

function errors(spec: JsonObject): string[] {
  const r = compilePodSecurity(spec, PATH);
  return r.ok
    ? []
    : r.problems.filter((p) => p.severity === "error").map((p) => `${p.path.slice(PATH.length)}: ${p.message}`);
}

describe("compilePodSecurity", () => {
  test("level, version and excludes compile", () => {
    const r = compilePodSecurity(
      { level: "restricted", version: "v1.29", exclude: [{ controlName: "Capabilities", images: ["nginx*"] }] },
      PATH,
    );
    assert.ok(r.ok);
    const { checks, ...rest } = r.value;
    assert.deepEqual(rest, {
      level: "restricted",
      versionText: "v1.29",
      version: 29,
      exclude: [{ controlName: "Capabilities", images: ["nginx*"] }],
    });
    // The check versions are scheduled once: restricted runs restricted-only checks too; v1.29 has no probe-host check (v1.34).
    const ids = checks.map((c) => c.id);
    assert.ok(ids.includes("runAsNonRoot") && ids.includes("privileged"));
    assert.ok(!ids.includes("hostProbesAndHostLifecycle"));
  });

  test("version defaults to latest and keeps its text for messages", () => {
    const r = compilePodSecurity({ level: "baseline" }, PATH);
    assert.ok(r.ok);
    assert.equal(r.value.version, "latest");
    assert.equal(r.value.versionText, "");
  });

  test("unknown fields are warnings", () => {
    const r = compilePodSecurity({ level: "baseline", levle: "x" }, PATH);
    assert.ok(r.ok);
    assert.deepEqual(
      r.warnings.map((w) => w.path),
      [`${PATH}.levle`],
    );
  });

  const rejected: readonly [string, JsonObject, string][] = [
    ["missing level", {}, '.level: Required value: one of "privileged", "baseline", "restricted"'],
    [
      "unknown level",
      { level: "strict" },
      '.level: Unsupported value: "strict": supported values: "privileged", "baseline", "restricted"',
    ],
    [
      "malformed version",
      { level: "baseline", version: "1.25" },
      '.version: Unsupported value: "1.25": supported values: "latest" or "v1.<minor>", e.g. "v1.32"',
    ],
    [
      "version 2",
      { level: "baseline", version: "v2.0" },
      '.version: Unsupported value: "v2.0": supported values: "latest" or "v1.<minor>", e.g. "v1.32"',
    ],
    [
      "exclude not a list",
      { level: "baseline", exclude: { controlName: "Sysctls" } },
      ".exclude: must be a list of {controlName, images, restrictedField, values}",
    ],
    [
      "unknown control",
      { level: "baseline", exclude: [{ controlName: "Privileged" }] },
      '.exclude[0].controlName: Unsupported value: "Privileged": supported values: "HostProcess", "Host Namespaces", "Privileged Containers", "Capabilities", "HostPath Volumes", "Host Ports", "AppArmor", "SELinux", "/proc Mount Type", "Seccomp", "Sysctls", "Volume Types", "Privilege Escalation", "Running as Non-root", "Running as Non-root user"',
    ],
    [
      "container-level control without images",
      { level: "baseline", exclude: [{ controlName: "Host Ports" }] },
      '.exclude[0].controlName: Invalid value: "Host Ports": exclude.images must be specified for the container level control',
    ],
    [
      "pod-level control with images",
      { level: "baseline", exclude: [{ controlName: "Sysctls", images: ["*"] }] },
      '.exclude[0].controlName: Invalid value: "Sysctls": exclude.images must not be specified for the pod level control',
    ],
    [
      "restricted control at baseline",
      { level: "baseline", exclude: [{ controlName: "Running as Non-root" }] },
      '.exclude[0].controlName: Invalid value: "Running as Non-root": Invalid control name defined at the given level',
    ],
    [
      "images not strings",
      { level: "restricted", exclude: [{ controlName: "Seccomp", images: [1] }] },
      ".exclude[0].images: must be a list of strings",
    ],
  ];
  for (const [name, spec, expected] of rejected) {
    test(`rejects ${name}`, () => assert.deepEqual(errors(spec), [expected]));
  }

  test("Seccomp and Capabilities may be excluded at baseline; restricted controls at restricted", () => {
    assert.deepEqual(
      errors({
        level: "baseline",
        exclude: [{ controlName: "Seccomp" }, { controlName: "Capabilities", images: ["*"] }],
      }),
      [],
    );
    assert.deepEqual(
      errors({
        level: "restricted",
        exclude: [{ controlName: "Volume Types" }, { controlName: "Running as Non-root user", images: ["a"] }],
      }),
      [],
    );
  });

  test("problems are reported for every entry at once", () => {
    assert.equal(
      errors({
        level: "baseline",
        exclude: [{ controlName: "Host Ports" }, { controlName: "AppArmor", images: ["x"] }],
      }).length,
      2,
    );
  });
});

describe("checkPodSecurityExclude (PolicyException entries)", () => {
  test("restrictedField and values go together", () => {
    assert.deepEqual(
      checkPodSecurityExclude(
        {
          controlName: "Capabilities",
          images: ["*"],
          restrictedField: "spec.containers[*].securityContext.capabilities.add",
        },
        "spec.podSecurity[0]",
      ).map((p) => `${p.path}: ${p.message}`),
      ["spec.podSecurity[0].values: Forbidden: values is required"],
    );
    assert.deepEqual(
      checkPodSecurityExclude({ controlName: "Sysctls", values: ["x"] }, "spec.podSecurity[1]").map(
        (p) => `${p.path}: ${p.message}`,
      ),
      ["spec.podSecurity[1].restrictedField: Forbidden: restrictedField is required"],
    );
  });

  test("control names and images are checked like a rule's", () => {
    assert.equal(checkPodSecurityExclude({ controlName: "Nope" }, "p").length, 1);
    assert.equal(checkPodSecurityExclude({ controlName: "Privileged Containers" }, "p").length, 1);
    assert.deepEqual(checkPodSecurityExclude({ controlName: "Seccomp" }, "p"), []);
  });
});
