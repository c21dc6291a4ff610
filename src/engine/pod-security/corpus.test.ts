/**
 * Runs the Kyverno policy library's `pod-security/subrule` suites (badpod/goodpod with expected
 * pass/fail) through compilePodSecurity + evaluatePodSecurity. Skipped when the corpus is absent.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseAllDocuments } from "yaml";
import { isObject, type JsonObject, textOf } from "../api/json.js";
import { compilePodSecurity } from "./compile.js";
import { evaluatePodSecurity } from "./evaluate-pod-security.js";

const ROOT = "/work/shared/conformance/kyverno-policies/pod-security/subrule";

function suites(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (!e.isDirectory()) return [];
    const full = join(dir, e.name);
    return e.name === ".kyverno-test" ? [join(full, "kyverno-test.yaml")] : suites(full);
  });
}

function documents(file: string): JsonObject[] {
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map((d) => d.toJSON() as unknown)
    .filter(isObject);
}

const files = suites(ROOT).filter((f) => existsSync(f));

describe(
  "kyverno-policies pod-security/subrule suites",
  { skip: files.length === 0 ? "corpus not present" : false },
  () => {
    for (const file of files) {
      const base = dirname(file);
      const suite = documents(file)[0] ?? {};
      const policies = (suite["policies"] as string[]).flatMap((p) => documents(resolve(base, p)));
      const resources = (suite["resources"] as string[]).flatMap((r) => documents(resolve(base, r)));
      for (const expected of suite["results"] as JsonObject[]) {
        const policy = policies.find((p) => (p["metadata"] as JsonObject)["name"] === expected["policy"]);
        const rules = ((policy?.["spec"] as JsonObject | undefined)?.["rules"] ?? []) as JsonObject[];
        const rule = rules.find((r) => r["name"] === expected["rule"]);
        for (const name of expected["resources"] as string[]) {
          test(`${textOf(expected["policy"])}/${textOf(expected["rule"])} on ${name}: ${textOf(expected["result"])}`, () => {
            const spec = (rule?.["validate"] as JsonObject | undefined)?.["podSecurity"];
            assert.ok(isObject(spec), "the rule has validate.podSecurity");
            const compiled = compilePodSecurity(spec, "spec.rules[0].validate.podSecurity");
            assert.ok(compiled.ok);
            const resource = resources.find(
              (r) => (r["metadata"] as JsonObject)["name"] === name && r["kind"] === expected["kind"],
            );
            assert.ok(resource, `resource ${name}`);
            const outcome = evaluatePodSecurity(compiled.value, resource);
            assert.equal(outcome.allowed ? "pass" : "fail", expected["result"]);
          });
        }
      }
    }
  },
);
