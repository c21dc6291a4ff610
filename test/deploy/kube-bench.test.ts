/**
 * deploy/components/kube-bench (issue 37, "a DaemonCronJob"; docs/adr/0020): a DaemonSet, one pod a
 * node, that runs kube-bench on a schedule through `bylaw kube-bench --schedule`. What a user relies
 * on: every node (tainted ones too) gets a pod; the pod has no API token; it lives outside Bylaw's
 * restricted namespace; and its args are ones `bylaw kube-bench` accepts, with the node from the
 * Downward API and the command pointing where the init container copies kube-bench.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, test } from "node:test";
import { main } from "../../src/cli/main.js";
import { helmMissing, helmTemplate, helmTemplateError } from "./helm.js";
import { recordingIo } from "../support/fake-io.js";
import { at, kubectlMissing, list, one, render, repoRoot, type Manifest } from "./render.js";

const SKIP = kubectlMissing();
const HELM_SKIP = helmMissing() ?? SKIP;
const root = repoRoot();

function withKubeBench(): Manifest[] {
  const dir = mkdtempSync(join(tmpdir(), "bylaw-kube-bench-"));
  try {
    const base = relative(dir, join(root, "deploy", "base"));
    const comp = relative(dir, join(root, "deploy", "components", "kube-bench"));
    writeFileSync(join(dir, "kustomization.yaml"), `resources:\n  - ${base}\ncomponents:\n  - ${comp}\n`);
    return render(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("deploy/components/kube-bench", { skip: SKIP ?? false }, () => {
  const manifests = SKIP === undefined ? withKubeBench() : [];
  const ds = () => one(manifests, "DaemonSet", "bylaw-kube-bench");

  test("a DaemonSet on every node, tainted ones too, with no ServiceAccount token", () => {
    const pod = at(ds(), "spec", "template", "spec");
    assert.deepEqual(list(at(pod, "tolerations")), [{ operator: "Exists" }]);
    assert.equal(at(pod, "automountServiceAccountToken"), false);
    assert.equal(at(pod, "hostPID"), true);
  });

  test("in a namespace of its own with the privileged standard; Bylaw's namespace stays restricted", () => {
    assert.equal(at(ds(), "metadata", "namespace"), "bylaw-kube-bench");
    const own = one(manifests, "Namespace", "bylaw-kube-bench");
    assert.equal(at(own, "metadata", "labels", "pod-security.kubernetes.io/enforce"), "privileged");
    const bylaw = one(manifests, "Namespace", "bylaw");
    assert.equal(at(bylaw, "metadata", "labels", "pod-security.kubernetes.io/enforce"), "restricted");
  });

  test("every host path is mounted read-only, and kube-bench comes from the init container's copy", () => {
    const pod = at(ds(), "spec", "template", "spec");
    const container = at(pod, "containers", 0);
    for (const m of list(at(container, "volumeMounts"))) assert.equal(at(m, "readOnly"), true, JSON.stringify(m));
    const init = at(pod, "initContainers", 0);
    const copied = list(at(init, "command")).join(" ");
    const args = list(at(container, "args")).map(String);
    const command = args.slice(args.indexOf("--") + 1);
    assert.ok(copied.includes(`/kube-bench/`) && command[0] === "/kube-bench/kube-bench", command.join(" "));
    assert.ok(copied.includes("/kube-bench/cfg") && command.includes("/kube-bench/cfg"));
    const env = list(at(container, "env"));
    assert.deepEqual(
      env.find((e) => at(e, "name") === "NODE_NAME"),
      { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
    );
  });

  test("its args are ones `bylaw kube-bench` accepts: the schedule reads, and a run that fails is reported", async () => {
    const container = at(ds(), "spec", "template", "spec", "containers", 0);
    const args = list(at(container, "args")).map(String);
    assert.equal(args[0], "kube-bench");
    assert.ok(args.includes("--schedule"));
    // Without --schedule (one run, not a loop), on this machine kube-bench is not at /kube-bench:
    // the run fails saying so; the flags themselves are accepted (not exit 2).
    const at_ = args.indexOf("--schedule");
    const once = [...args.slice(1, at_), ...args.slice(at_ + 2)];
    const io = recordingIo();
    const code = await main(["kube-bench", "--node", "n1", ...once], io);
    assert.equal(code, 1, io.stderr.join("\n"));
    assert.match(
      io.stderr.join("\n"),
      /"\/kube-bench\/kube-bench run --json --config-dir \/kube-bench\/cfg" could not start/,
    );
  });
});

describe("the chart's kubeBench values", { skip: HELM_SKIP ?? false }, () => {
  test("off by default; on, the same pod as deploy/components/kube-bench, with the values' schedule and sinks", () => {
    assert.equal(
      helmTemplate().filter((m) => m.kind === "DaemonSet").length,
      0,
      "no DaemonSet unless kubeBench.enabled",
    );
    const chart = helmTemplate({
      kubeBench: {
        enabled: true,
        schedule: "@every 6h",
        pushgateway: "http://pg:9091",
        loki: "http://loki",
        kubeBenchArgs: ["--targets", "node"],
      },
    });
    const ds = one(chart, "DaemonSet", "bylaw-kube-bench");
    const args = list(at(ds, "spec", "template", "spec", "containers", 0, "args")).map(String);
    assert.deepEqual(args.slice(0, 7), [
      "kube-bench",
      "--schedule",
      "@every 6h",
      "--pushgateway",
      "http://pg:9091",
      "--loki",
      "http://loki",
    ]);
    assert.deepEqual(args.slice(args.indexOf("--")), [
      "--",
      "/kube-bench/kube-bench",
      "run",
      "--json",
      "--config-dir",
      "/kube-bench/cfg",
      "--targets",
      "node",
    ]);
    assert.equal(
      at(one(chart, "Namespace", "bylaw-kube-bench"), "metadata", "labels", "pod-security.kubernetes.io/enforce"),
      "privileged",
    );
    const component = one(withKubeBench(), "DaemonSet", "bylaw-kube-bench");
    const pod = (m: Manifest) => {
      const spec = structuredClone(at(m, "spec", "template", "spec")) as { containers: { args?: unknown }[] };
      for (const c of spec.containers) delete c.args;
      return spec;
    };
    assert.deepEqual(pod(ds), pod(component), "the chart and the component run the same pod");
  });

  test("enabled with nowhere to send the results is refused", () => {
    assert.match(
      helmTemplateError({ kubeBench: { enabled: true } }) ?? "",
      /kubeBench\.pushgateway or kubeBench\.loki/,
    );
  });
});
