import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { renderSarif, SARIF_SCHEMA } from "./sarif.js";
import { PSS_MESSAGE, row } from "../../../test/support/result-rows.js";

interface Sarif {
  $schema: string;
  version: string;
  runs: {
    tool: {
      driver: {
        name: string;
        version?: string;
        rules: {
          id: string;
          shortDescription: { text: string };
          fullDescription: { text: string };
          help: { text: string };
          defaultConfiguration: { level: string };
          properties?: Record<string, unknown>;
        }[];
      };
    };
    originalUriBaseIds: Record<string, { uri: string }>;
    results: {
      ruleId: string;
      ruleIndex: number;
      level: string;
      message: { text: string };
      locations: {
        physicalLocation?: { artifactLocation: { uri: string; uriBaseId?: string }; region?: { startLine: number } };
        logicalLocations: { name: string }[];
      }[];
      properties: Record<string, unknown>;
    }[];
  }[];
}

const info = {
  title: "Require a team label",
  description: "Every Pod says which team owns it.",
  severity: "high",
  category: "Best Practices",
};
const rows = [
  row({ result: "pass", info }),
  row({
    result: "fail",
    resource: "Pod/shop/bad",
    resourceIndex: 1,
    origin: { source: "/repo/manifests/my pods.yaml", line: 14 },
    info,
    ruleMessage: "team label required",
  }),
  row({ result: "fail", policy: "psa", rule: "restricted", action: "Audit", message: PSS_MESSAGE }),
  row({
    result: "warn",
    policy: "latest",
    rule: "tag",
    action: "Audit",
    message: "tag latest",
    origin: { source: "<stdin>", line: 1 },
  }),
  row({
    result: "error",
    policy: "lookup",
    rule: "cm",
    action: "-",
    message: "variable x not found",
    origin: { source: "/outside/r.yaml", line: 2 },
  }),
  row({ result: "skip", policy: "skipped", rule: "r" }),
];
const sarif = renderSarif(rows, { cwd: "/repo", version: "0.1.0" }) as unknown as Sarif;
const run = sarif.runs[0];

describe("renderSarif", () => {
  test("SARIF 2.1.0 with the bylaw driver", () => {
    assert.equal(sarif.$schema, SARIF_SCHEMA);
    assert.equal(sarif.version, "2.1.0");
    assert.equal(run?.tool.driver.name, "bylaw");
    assert.equal(run?.tool.driver.version, "0.1.0");
    assert.equal(run?.originalUriBaseIds["%SRCROOT%"]?.uri, "file:///repo/");
  });

  test("rules are the policy/rule pairs that ran, sorted, described from the annotations", () => {
    assert.deepEqual(
      run?.tool.driver.rules.map((r) => r.id),
      ["latest/tag", "lookup/cm", "psa/restricted", "require-team/check-team", "skipped/r"],
    );
    const team = run?.tool.driver.rules.find((r) => r.id === "require-team/check-team");
    assert.equal(team?.shortDescription.text, "Require a team label (rule check-team)");
    assert.equal(team?.fullDescription.text, "Every Pod says which team owns it.");
    assert.match(
      team?.help.text ?? "",
      /Every Pod says which team owns it\.\n\nThe rule's message: team label required\n\n.*PolicyException \(policyName: require-team, ruleNames: \[check-team\]\)/s,
    );
    assert.equal(team?.defaultConfiguration.level, "error");
    assert.deepEqual(team?.properties, {
      tags: ["Best Practices", "security"],
      severity: "high",
      "security-severity": "8.0",
    });
  });

  test("results: fail, warn and error only; Enforce fail is an error, Audit fail and warn are warnings", () => {
    const results = run?.results ?? [];
    assert.deepEqual(
      results.map((r) => [r.ruleId, r.level]),
      [
        ["require-team/check-team", "error"],
        ["psa/restricted", "warning"],
        ["latest/tag", "warning"],
        ["lookup/cm", "error"],
      ],
    );
    for (const r of results) assert.equal(run?.tool.driver.rules[r.ruleIndex]?.id, r.ruleId);
    assert.match(results[3]?.message.text ?? "", /^rule could not be evaluated: variable x not found$/);
    assert.deepEqual(results[1]?.properties["controls"], ["allowPrivilegeEscalation != false", "runAsNonRoot != true"]);
  });

  test("locations: the manifest relative to the working folder, URI-encoded, and the document's first line", () => {
    const [bad, psa, stdin, outside] = (run?.results ?? []).map((r) => r.locations[0]);
    assert.deepEqual(bad?.physicalLocation, {
      artifactLocation: { uri: "manifests/my%20pods.yaml", uriBaseId: "%SRCROOT%" },
      region: { startLine: 14 },
    });
    assert.deepEqual(
      bad?.logicalLocations.map((l) => l.name),
      ["Pod/shop/bad"],
    );
    assert.equal(psa?.physicalLocation?.artifactLocation.uri, "manifests/pods.yaml");
    assert.equal(stdin?.physicalLocation, undefined, "stdin has no file");
    assert.deepEqual(
      stdin?.logicalLocations.map((l) => l.name),
      ["Pod/shop/web"],
    );
    assert.deepEqual(outside?.physicalLocation?.artifactLocation, { uri: "file:///outside/r.yaml" });
  });
});
