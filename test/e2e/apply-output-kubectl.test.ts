/**
 * Issue 23, end to end: `bylaw apply pol.yaml -r cm.yaml -o out.yaml` on a ConfigMap whose label is
 * "yes" and whose data entry is "on" writes a file that real kubectl reads back with both still
 * strings (`kubectl create --dry-run=client --validate=false -o json -f out.yaml`); so do `-p`
 * PolicyReports and the YAML that follows the results on stdout.
 */
import { describe, test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isObject, type JsonObject } from "../../src/engine/index.js";
import { allowNoKubectl, kubectlAvailable, noKubectlMessage, readWithKubectl } from "../support/kubectl-reader.js";
import { tempTree } from "../support/temp-dir.js";
import { readKubernetes } from "../support/yaml-readers.js";

const bylaw = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "bin", "bylaw.js");

const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: stamp-configmaps
spec:
  rules:
    - name: stamp
      match:
        any:
          - resources:
              kinds: [ConfigMap]
      mutate:
        patchStrategicMerge:
          metadata:
            annotations:
              stamped: "true"
`;

const configMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: team-a
  labels:
    enabled: "yes"
data:
  flag: "on"
  mode: "0755"
`;

const CONFIGMAP = { apiVersion: "v1", kind: "ConfigMap" };
const POLICY_REPORT = { apiVersion: "wgpolicyk8s.io/v1alpha2", kind: "PolicyReport" };

/** The check with kubectl, or (BYLAW_ALLOW_NO_KUBECTL=1 only) a loud skip when kubectl is missing. */
async function needKubectl(t: TestContext): Promise<boolean> {
  const available = await kubectlAvailable();
  if (available.ok) return true;
  if (!allowNoKubectl()) assert.fail(noKubectlMessage(available.why));
  t.diagnostic(noKubectlMessage(available.why));
  t.skip(noKubectlMessage(available.why));
  return false;
}

function runBylaw(args: string[], cwd: string): string {
  try {
    return execFileSync(process.execPath, [bylaw, ...args], {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (e) {
    // exit 1 means "a rule failed"; the output is still what we want to read
    const out = (e as { stdout?: string }).stdout;
    if (typeof out === "string") return out;
    throw e;
  }
}

function assertStamped(cm: JsonObject | undefined): void {
  assert.ok(cm !== undefined, "no ConfigMap read back");
  const meta = cm["metadata"];
  const data = cm["data"];
  assert.ok(isObject(meta) && isObject(data));
  assert.deepEqual(meta["labels"], { enabled: "yes" });
  assert.deepEqual(meta["annotations"], { stamped: "true" });
  assert.deepEqual(data, { flag: "on", mode: "0755" });
}

describe("bylaw apply output read back by kubectl (issue 23)", () => {
  test('-o out.yaml keeps "yes" and "on" strings, for kubectl and for Bylaw itself', async (t) => {
    const dir = tempTree({ "pol.yaml": policy, "cm.yaml": configMap });
    runBylaw(["apply", "pol.yaml", "-r", "cm.yaml", "-o", "out.yaml"], dir);
    const text = readFileSync(join(dir, "out.yaml"), "utf8");
    assert.match(text, /^# mutated by stamp-configmaps\n/);
    assert.match(text, /^ {4}enabled: "yes"$/m);
    assert.match(text, /^ {2}flag: "on"$/m);
    assertStamped(readKubernetes(text)[0] as JsonObject);
    if (!(await needKubectl(t))) return;
    const read = await readWithKubectl(text, [CONFIGMAP]);
    assert.equal(read.length, 1);
    assertStamped(read[0]);
  });

  test("the YAML the text prints (as kyverno apply, after `applied to ...:`), and -p PolicyReports, read back in kubectl too", async (t) => {
    const dir = tempTree({ "pol.yaml": policy, "cm.yaml": configMap });
    const stdout = runBylaw(["apply", "pol.yaml", "-r", "cm.yaml"], dir);
    const start = stdout.indexOf(":\n", stdout.indexOf("\npolicy stamp-configmaps applied to ")) + 2;
    const yamlPart = stdout.slice(start, stdout.indexOf("\n---\n", start));
    // go-yaml v3's layout (four spaces), as Kyverno 1.19 prints it.
    assert.match(yamlPart, /^ {4}flag: "on"$/m);
    const reports = runBylaw(["apply", "pol.yaml", "-r", "cm.yaml", "-p", "--report-api", "wgpolicyk8s"], dir);
    const wantReports = readKubernetes(reports);
    assert.ok(wantReports.length > 0, "no PolicyReport written");
    if (!(await needKubectl(t))) return;
    assertStamped((await readWithKubectl(yamlPart, [CONFIGMAP]))[0]);
    const kubectlReports = await readWithKubectl(reports, [
      POLICY_REPORT,
      { apiVersion: "wgpolicyk8s.io/v1alpha2", kind: "ClusterPolicyReport" },
    ]);
    assert.deepEqual(kubectlReports, wantReports);
  });
});
