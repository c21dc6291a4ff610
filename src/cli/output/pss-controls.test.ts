import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { failedControls, pssControls, pssProfile } from "./pss-controls.js";
import { PSS_MESSAGE } from "../../../test/support/result-rows.js";

describe("pssControls", () => {
  const cases: [string, string, string[]][] = [
    [
      "every control of a multi-control failure, once each",
      PSS_MESSAGE,
      ["allowPrivilegeEscalation != false", "runAsNonRoot != true"],
    ],
    [
      "the older {ForbiddenReason:...} form",
      `Validation rule 'restricted' failed. It violates PodSecurity "restricted:latest": ({Allowed:false ForbiddenReason:seccompProfile ForbiddenDetail:container "c" must not set ...})`,
      ["seccompProfile"],
    ],
    [
      "a line break after the profile",
      `Validation rule 'baseline' failed. It violates PodSecurity "baseline:v1.29":\n(Forbidden reason: non-default capabilities, field error list: [spec.initContainers[0].securityContext.capabilities.add is forbidden, forbidden values found: [NET_ADMIN]])`,
      ["non-default capabilities"],
    ],
    ["nothing for other messages", "validation error: Forbidden reason: x, field error list: y", []],
  ];
  for (const [name, message, expected] of cases) test(name, () => assert.deepEqual(pssControls(message), expected));

  test("pssProfile names the level and version", () => {
    assert.equal(pssProfile(PSS_MESSAGE), "restricted:latest");
    assert.equal(pssProfile("validation error"), undefined);
  });
});

describe("failedControls", () => {
  test("prefers the control names of the engine's controlsJSON property", () => {
    const properties = {
      controls: "privileged,hostNamespaces",
      controlsJSON:
        '[{"ID":"privileged","Name":"Privileged Containers","Images":["nginx"]},{"ID":"hostNamespaces","Name":"Host Namespaces","Images":null}]',
    };
    assert.deepEqual(failedControls(PSS_MESSAGE, properties), ["Privileged Containers", "Host Namespaces"]);
  });

  test("falls back to the reasons in the message when the property is absent or unreadable", () => {
    assert.deepEqual(failedControls(PSS_MESSAGE, undefined), [
      "allowPrivilegeEscalation != false",
      "runAsNonRoot != true",
    ]);
    assert.deepEqual(failedControls(PSS_MESSAGE, { controlsJSON: "[not json" }), [
      "allowPrivilegeEscalation != false",
      "runAsNonRoot != true",
    ]);
  });
});
