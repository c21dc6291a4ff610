/**
 * `npm run yaml-round-trip` (issue 23's "done when"): write every document of the conformance
 * corpus, every resource its suites produce, and the hostile-string set through Bylaw's one YAML
 * writer, read each back with a YAML 1.2 reader, a YAML 1.1 reader and Bylaw's Kubernetes-rules
 * loader, and with real kubectl (`kubectl create --dry-run=client`) for the hostile set and every
 * corpus document that is a named Kubernetes object. Every JSON must equal the JSON written.
 * Exit 1 on any difference, and when kubectl is missing (unless BYLAW_ALLOW_NO_KUBECTL=1, which
 * still prints that the kubectl check did not run).
 *
 *   BYLAW_CONFORMANCE_DIR   the corpus (default ../shared/conformance/kyverno-policies)
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "../../src/engine/index.js";
import { writeYaml, writeYamlStream } from "../../src/platform/yaml/index.js";
import { fixedHostileStrings, hostileObjects, seededHostileStrings } from "../support/hostile-yaml-strings.js";
import {
  allowNoKubectl,
  asKubectlCreates,
  kubectlAvailable,
  noKubectlMessage,
  readWithKubectl,
  type Kind,
} from "../support/kubectl-reader.js";
import { canonicalJson, readKubernetes, readYaml11, readYaml12, type Reader } from "../support/yaml-readers.js";
import { corpusDocuments, isKubernetesObject, type SourcedDocument } from "./corpus-documents.js";
import { textOf } from "../../src/engine/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, "..", "..", "..");
const READERS: [string, Reader][] = [
  ["YAML 1.2", readYaml12],
  ["YAML 1.1", readYaml11],
  ["Kubernetes rules", readKubernetes],
];
/** Documents per kubectl call: one process per batch, a file of a few MB. */
const KUBECTL_BATCH = 2000;

function checkWithLibraries(docs: readonly SourcedDocument[], failures: string[]): void {
  for (const doc of docs) {
    const want = canonicalJson(doc.value);
    const text = writeYaml(doc.value);
    for (const [name, read] of READERS) {
      let got: string;
      try {
        const values = read(text);
        got = values.length === 1 ? canonicalJson(values[0]) : `${values.length} documents`;
      } catch (e) {
        got = `an error: ${e instanceof Error ? e.message : String(e)}`;
      }
      if (got !== want)
        failures.push(`${doc.where}: ${name} reads back ${got.slice(0, 300)}\n  written: ${want.slice(0, 300)}`);
    }
  }
}

async function checkWithKubectl(docs: readonly SourcedDocument[], failures: string[]): Promise<number> {
  const objects = docs.filter((d): d is SourcedDocument & { value: JsonObject } => isKubernetesObject(d.value));
  for (let i = 0; i < objects.length; i += KUBECTL_BATCH) {
    const batch = objects.slice(i, i + KUBECTL_BATCH);
    const kinds = new Map<string, Kind>();
    for (const d of batch)
      kinds.set(`${textOf(d.value["apiVersion"])}/${textOf(d.value["kind"])}`, {
        apiVersion: textOf(d.value["apiVersion"]),
        kind: textOf(d.value["kind"]),
      });
    let got: JsonObject[];
    try {
      got = await readWithKubectl(writeYamlStream(batch.map((d) => ({ value: d.value }))), [...kinds.values()]);
    } catch (e) {
      failures.push(`kubectl, documents ${i + 1}–${i + batch.length}: ${e instanceof Error ? e.message : String(e)}`);
      continue;
    }
    if (got.length !== batch.length)
      failures.push(
        `kubectl, documents ${i + 1}–${i + batch.length}: read ${got.length} objects, wrote ${batch.length}`,
      );
    batch.forEach((d, j) => {
      const want = canonicalJson(asKubectlCreates(d.value));
      const have = canonicalJson(got[j]);
      if (have !== want)
        failures.push(`${d.where}: kubectl reads back ${have.slice(0, 300)}\n  written: ${want.slice(0, 300)}`);
    });
  }
  return objects.length;
}

async function main(): Promise<number> {
  const started = performance.now();
  const corpus =
    process.env["BYLAW_CONFORMANCE_DIR"] ?? resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");
  const hostile = hostileObjects([...fixedHostileStrings(), ...seededHostileStrings(5000)], 25).map((value, i) => ({
    where: `hostile set, ConfigMap ${i}`,
    value,
  }));
  let files: SourcedDocument[] = [];
  let produced: SourcedDocument[] = [];
  const failures: string[] = [];
  if (existsSync(join(corpus, "MANIFEST.tsv"))) {
    const found = await corpusDocuments(corpus);
    ({ files, produced } = found);
    console.log(
      `yaml round trip: ${found.suites} suites: ${files.length} documents in the files they name, ${produced.length} produced resources`,
    );
    if (found.unreadable.length > 0)
      console.log(
        `  (${found.unreadable.length} named files or documents the loader refuses, so not written: ${found.unreadable.slice(0, 3).join("; ")}${found.unreadable.length > 3 ? "; …" : ""})`,
      );
  } else {
    console.log(
      `yaml round trip: corpus not found at ${corpus}; only the hostile set runs (set BYLAW_CONFORMANCE_DIR)`,
    );
  }
  const all = [...files, ...produced, ...hostile];
  checkWithLibraries(all, failures);
  console.log(
    `yaml round trip: ${all.length} documents written and read back with ${READERS.map(([n]) => n).join(", ")}`,
  );

  const kubectl = await kubectlAvailable();
  let kubectlMissing = false;
  if (kubectl.ok) {
    const n = await checkWithKubectl(all, failures);
    console.log(
      `yaml round trip: ${n} of them are named Kubernetes objects, read back with ${kubectl.version} (create --dry-run=client)`,
    );
  } else {
    kubectlMissing = true;
    console.error(`\n!!! ${noKubectlMessage(kubectl.why)}\n`);
  }
  for (const f of failures.slice(0, 50)) console.log(`DIFFERS ${f}`);
  if (failures.length > 50) console.log(`… and ${failures.length - 50} more`);
  const verdict =
    failures.length === 0 ? "every document reads back as the same JSON" : `${failures.length} differences`;
  console.log(
    `yaml round trip: ${verdict}${kubectlMissing ? " in the libraries; the kubectl check did NOT run" : ""}; ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  if (failures.length > 0) return 1;
  return kubectlMissing && !allowNoKubectl() ? 1 : 0;
}

process.exitCode = await main();
