/** Kyverno's -o json|yaml|markdown bodies, byte for byte. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { goJson, renderKyvernoFormat, type KyvernoRow } from "./kyverno-formats.js";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";

const rows: KyvernoRow[] = [
  {
    id: 1,
    policy: "require-team",
    rule: "autogen-check-team",
    resource: "apps/v1/Deployment/default/web",
    result: "Pass",
    reason: "Ok",
    message: "validation rule 'autogen-check-team' passed.",
    failure: false,
  },
  {
    id: 2,
    policy: "p",
    rule: "",
    resource: "v1/Pod/default/a",
    result: "Fail",
    reason: "Want pass, got fail",
    message:
      "validation error: The label `team` is required & must be <set>. rule check-team failed at path /metadata/labels/team/ and a very long tail that goes past eighty columns for sure",
    failure: true,
  },
  {
    id: 3,
    policy: "p",
    rule: "yes",
    resource: "v1/Namespace//x",
    result: "Fail",
    reason: "Resource diff",
    message: "line one\nline two: x\n  indented",
    failure: true,
  },
  {
    id: 4,
    policy: "p",
    rule: "r",
    resource: "v1/Pod/default/a",
    result: "Pass",
    reason: "Excluded",
    message: "",
    failure: false,
  },
];

/**
 * What Kyverno 1.19's encoders print for these rows (encoding/json MarshalIndent, and
 * go.yaml.in/yaml/v3 v3.0.4 Marshal, the version Kyverno's go.mod pins), produced by a Go program
 * marshalling the same []map[string]interface{} Kyverno's printOutputFormats builds.
 */
const GO_JSON = `[
  {
    "ID": 1,
    "Message": "validation rule 'autogen-check-team' passed.",
    "POLICY": "require-team",
    "REASON": "Ok",
    "RESOURCE": "apps/v1/Deployment/default/web",
    "RESULT": "Pass",
    "RULE": "autogen-check-team"
  },
  {
    "ID": 2,
    "Message": "validation error: The label \`team\` is required \\u0026 must be \\u003cset\\u003e. rule check-team failed at path /metadata/labels/team/ and a very long tail that goes past eighty columns for sure",
    "POLICY": "p",
    "REASON": "Want pass, got fail",
    "RESOURCE": "v1/Pod/default/a",
    "RESULT": "Fail",
    "RULE": ""
  },
  {
    "ID": 3,
    "Message": "line one\\nline two: x\\n  indented",
    "POLICY": "p",
    "REASON": "Resource diff",
    "RESOURCE": "v1/Namespace//x",
    "RESULT": "Fail",
    "RULE": "yes"
  },
  {
    "ID": 4,
    "Message": "",
    "POLICY": "p",
    "REASON": "Excluded",
    "RESOURCE": "v1/Pod/default/a",
    "RESULT": "Pass",
    "RULE": "r"
  }
]`;
const GO_YAML = `- ID: 1
  Message: validation rule 'autogen-check-team' passed.
  POLICY: require-team
  REASON: Ok
  RESOURCE: apps/v1/Deployment/default/web
  RESULT: Pass
  RULE: autogen-check-team
- ID: 2
  Message: 'validation error: The label \`team\` is required & must be <set>. rule check-team failed at path /metadata/labels/team/ and a very long tail that goes past eighty columns for sure'
  POLICY: p
  REASON: Want pass, got fail
  RESOURCE: v1/Pod/default/a
  RESULT: Fail
  RULE: ""
- ID: 3
  Message: |-
    line one
    line two: x
      indented
  POLICY: p
  REASON: Resource diff
  RESOURCE: v1/Namespace//x
  RESULT: Fail
  RULE: "yes"
- ID: 4
  Message: ""
  POLICY: p
  REASON: Excluded
  RESOURCE: v1/Pod/default/a
  RESULT: Pass
  RULE: r
`;

describe("Kyverno's test output formats", () => {
  test("-o json is Go's MarshalIndent of the rows: keys sorted, <, > and & escaped", () => {
    assert.equal(renderKyvernoFormat("json", rows, true), `\n${GO_JSON}\n\n`);
  });

  test("-o yaml is go-yaml v3's: single quotes where plain cannot be, double for empty and boolean-like strings, literal blocks", () => {
    assert.equal(renderKyvernoFormat("yaml", rows, true), `\n${GO_YAML}\n\n`);
  });

  test("without --detailed-results no Message key", () => {
    const [first] = JSON.parse(renderKyvernoFormat("json", rows.slice(0, 1), false)) as object[];
    assert.deepEqual(Object.keys(first ?? {}), ["ID", "POLICY", "REASON", "RESOURCE", "RESULT", "RULE"]);
  });

  test("-o markdown is Kyverno's table: a space after the header's last bar, ----| rules, cells unescaped", () => {
    assert.equal(
      renderKyvernoFormat("markdown", rows.slice(0, 2), false),
      [
        "",
        "| ID | POLICY | RULE | RESOURCE | RESULT | REASON | ",
        "|----|----|----|----|----|----|",
        "| 1 | require-team | autogen-check-team | apps/v1/Deployment/default/web | Pass | Ok |",
        "| 2 | p |  | v1/Pod/default/a | Fail | Want pass, got fail |",
        "",
        "",
        "",
      ].join("\n"),
    );
    assert.match(
      renderKyvernoFormat("markdown", rows.slice(3), true),
      /^\n\| ID \| POLICY \| RULE \| RESOURCE \| RESULT \| REASON \| MESSAGE \| \n\|----\|----\|----\|----\|----\|----\|----\|\n\| 4 \| p \| r \| v1\/Pod\/default\/a \| Pass \| Excluded \|  \|\n\n\n$/,
    );
  });

  test("an empty list is []", () => {
    assert.equal(goJson([]), "[]");
    assert.equal(goJson({ m: "a\u2028b<c" }), '{\n  "m": "a\\u2028b\\u003cc"\n}');
  });
});

test("--help shows the escapes as they appear in the output (\\u003c, not <)", async () => {
  const io = recordingIo();
  assert.equal(await main(["test", "--help"], io), 0);
  assert.match(io.stdout.join("\n"), /escaped as \\u003c, \\u003e, \\u0026,/);
});
