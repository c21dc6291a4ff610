/** The one YAML writer: what it writes reads back as the same JSON in YAML 1.1 and 1.2 readers and kubectl. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  fixedHostileStrings,
  hostileObjects,
  seededHostileStrings,
} from "../../../test/support/hostile-yaml-strings.js";
import {
  allowNoKubectl,
  asKubectlCreates,
  kubectlAvailable,
  noKubectlMessage,
  readWithKubectl,
} from "../../../test/support/kubectl-reader.js";
import {
  canonicalJson,
  readKubernetes,
  readYaml11,
  readYaml12,
  type Reader,
} from "../../../test/support/yaml-readers.js";
import type { JsonObject, JsonValue } from "../../engine/index.js";
import { resolvePlain } from "./resolve-scalar.js";
import { commentLine, goKeyOrder, writeGoYamlMap, writeKubeYaml, writeYaml, writeYamlStream } from "./write-yaml.js";

const READERS: [string, Reader][] = [
  ["YAML 1.2 (yaml core)", readYaml12],
  ["YAML 1.1 (yaml version 1.1)", readYaml11],
  ["Kubernetes rules (Bylaw's loader)", readKubernetes],
];

/** The first string whose document does not read back as written, per reader; empty when all do. */
function mismatches(
  values: readonly JsonValue[],
  write: (values: readonly JsonValue[]) => string = (vs) => writeYamlStream(vs.map((value) => ({ value }))),
): string[] {
  const text = write(values);
  const want = values.map(canonicalJson);
  const out: string[] = [];
  for (const [name, read] of READERS) {
    const got = read(text).map(canonicalJson);
    if (got.length !== want.length) out.push(`${name}: ${got.length} documents, wanted ${want.length}`);
    else {
      const i = got.findIndex((g, j) => g !== want[j]);
      if (i >= 0)
        out.push(
          `${name}: document ${i + 1} reads back as ${got[i]?.slice(0, 300)}, written ${want[i]?.slice(0, 300)}`,
        );
    }
  }
  return out;
}

describe("writeYaml", () => {
  test("the readers used below really apply their rules: unquoted yes/on/0755/1:20/<< are not strings in YAML 1.1", () => {
    const text =
      "a: yes\nb: on\nc: 0755\nd: 1:20\ne: 2001-12-14\nf: y\ng: 1_000\nh: 0o17\nbase: &b {x: 1}\nm:\n  <<: *b\n";
    const v11 = readYaml11(text)[0] as JsonObject;
    assert.equal(v11["a"], true);
    assert.equal(v11["b"], true);
    assert.equal(v11["c"], 493);
    assert.equal(v11["d"], 80);
    assert.ok((v11["e"] as unknown) instanceof Date);
    assert.equal(v11["f"], true);
    assert.equal(v11["g"], 1000);
    assert.deepEqual(v11["m"], { x: 1 });
    const v12 = readYaml12(text)[0] as JsonObject;
    assert.equal(v12["a"], "yes");
    assert.equal(v12["h"], 15);
    const k8s = readKubernetes(text)[0] as JsonObject;
    assert.equal(k8s["a"], true);
    assert.equal(k8s["c"], 493);
  });

  test('the issue\'s ConfigMap keeps "yes" and "on" as quoted strings', () => {
    const cm = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cm", labels: { enabled: "yes" } },
      data: { flag: "on" },
    };
    const text = writeYaml(cm);
    assert.match(text, /^ {4}enabled: "yes"$/m);
    assert.match(text, /^ {2}flag: "on"$/m);
    assert.deepEqual(mismatches([cm]), []);
  });

  test("every fixed hostile string reads back as itself, as a value, a key, a list item and nested", () => {
    assert.deepEqual(mismatches(hostileObjects(fixedHostileStrings(), 1)), []);
  });

  test("2,000 seeded hostile strings read back as themselves; hundreds of them are ones go-yaml v2 resolves to non-strings", () => {
    const strings = seededHostileStrings(2000);
    const resolved = new Set(strings.filter((s) => resolvePlain(s).kind !== "str")).size;
    assert.ok(
      resolved >= 300,
      `only ${resolved} of the seeded strings are ambiguous for go-yaml v2; the generator misses the point`,
    );
    assert.deepEqual(mismatches(hostileObjects(strings, 1)), []);
  });

  test("ordinary strings stay plain, so the output reads like kubectl's", () => {
    const text = writeYaml({
      image: "nginx:1.25",
      ip: "10.0.0.1",
      name: "app.kubernetes.io/name",
      cmd: "echo hello world",
      version: "1.2.3",
      count: 3,
      t: true,
      z: null,
    });
    assert.equal(
      text,
      "image: nginx:1.25\nip: 10.0.0.1\nname: app.kubernetes.io/name\ncmd: echo hello world\nversion: 1.2.3\ncount: 3\nt: true\nz: null\n",
    );
  });

  test("numbers, booleans, nulls, empty collections and repeated objects round-trip; repeated objects get no anchors", () => {
    const shared = { a: "1" };
    const value = {
      ints: [0, -1, 2 ** 53, 1e21, 12345678901234567000],
      floats: [0.5, -1.5e-7, 1e300],
      b: [true, false],
      z: null,
      e: {},
      l: [],
      one: shared,
      two: shared,
    };
    const text = writeYaml(value);
    assert.doesNotMatch(text, /[&*]a\d/);
    assert.deepEqual(mismatches([value]), []);
  });

  test("multi-line strings are block literals; long lines are not folded", () => {
    const long = "word ".repeat(100).trim();
    const text = writeYaml({ script: "#!/bin/sh\necho hi\n", long });
    assert.match(text, /^script: \|\n {2}#!\/bin\/sh\n {2}echo hi\n/);
    assert.ok(text.includes(`long: ${long}\n`));
  });

  test("a comment is one valid comment line whatever it holds; the document after it is unchanged", () => {
    const value = { kind: "ConfigMap", data: { a: "yes" } };
    for (const c of ["mutated by p/r", "x\ny", "x\ry", "x\u2028y", "x\u0085y", "#", "--- a", "x\u0000y"]) {
      const text = writeYaml(value, c);
      assert.equal(text.split("\n")[0], commentLine(c).trimEnd());
      assert.equal(text.slice(commentLine(c).length), writeYaml(value));
      for (const [name, read] of READERS)
        assert.deepEqual(read(text), [value], `${name} with comment ${JSON.stringify(c)}`);
    }
  });

  test("a stream is documents joined by ---, each with its comment", () => {
    const text = writeYamlStream([{ value: { a: 1 }, comment: "first" }, { value: { b: "no" } }]);
    assert.equal(text, '# first\na: 1\n---\nb: "no"\n');
  });

  test("real kubectl reads the hostile set back as the same JSON", async (t) => {
    const available = await kubectlAvailable();
    if (!available.ok) {
      if (allowNoKubectl()) {
        t.diagnostic(noKubectlMessage(available.why));
        t.skip(noKubectlMessage(available.why));
        return;
      }
      assert.fail(noKubectlMessage(available.why));
    }
    const objects = hostileObjects([...fixedHostileStrings(), ...seededHostileStrings(2000)], 25);
    const got = await readWithKubectl(writeYamlStream(objects.map((value) => ({ value }))), [
      { apiVersion: "v1", kind: "ConfigMap" },
    ]);
    assert.equal(got.length, objects.length);
    objects.forEach((o, i) =>
      assert.equal(canonicalJson(got[i]), canonicalJson(asKubectlCreates(o)), `ConfigMap ${i}`),
    );
  });
});

describe("writeKubeYaml", () => {
  test("as sigs.k8s.io/yaml: keys sorted, sequences level with their key, ambiguous strings double-quoted", () => {
    const pod = {
      spec: { containers: [{ name: "c", image: "nginx" }] },
      kind: "Pod",
      metadata: { labels: { on: "yes" } },
    };
    assert.equal(
      writeKubeYaml(pod),
      'kind: Pod\nmetadata:\n  labels:\n    "on": "yes"\nspec:\n  containers:\n  - image: nginx\n    name: c\n',
    );
  });
  test("as go-yaml v2: what cannot be plain is single-quoted, a quote inside doubled; a value breaks at the first single space past column 80", () => {
    // Kyverno v1.19.0's `kyverno apply -p`, for these two report rows.
    const converted =
      "failed to load context: failed to convert auditAnnotation 'k' expression: type conversion error from 'null_type' to 'string'";
    const pattern =
      "validation error: this is a rather long message that goes on and on past the eighty column limit of the emitter to see folding. rule r failed at path /metadata/labels/";
    assert.equal(
      writeKubeYaml({ results: [{ message: converted, policy: "ann" }] }),
      "results:\n- message: 'failed to load context: failed to convert auditAnnotation ''k'' expression:\n    type conversion error from ''null_type'' to ''string'''\n  policy: ann\n",
    );
    assert.equal(
      writeKubeYaml({ results: [{ message: pattern }] }),
      "results:\n- message: 'validation error: this is a rather long message that goes on and on past\n    the eighty column limit of the emitter to see folding. rule r failed at path /metadata/labels/'\n",
    );
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
    assert.equal(
      writeKubeYaml({ note: words }),
      "note: word0 word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11 word12\n  word13 word14 word15 word16 word17 word18 word19 word20 word21 word22 word23 word24\n  word25 word26 word27 word28 word29\n",
    );
  });

  test("what it breaks reads back as written: hostile strings made long, as values at several depths", () => {
    const pad = "lorem ipsum dolor sit amet ".repeat(4);
    const strings = [...fixedHostileStrings(), ...seededHostileStrings(500)].flatMap((s) => [
      `${pad}${s}`,
      `${s} ${pad}${s}`,
      `${pad}  ${s}  '${pad}'`,
    ]);
    const values = strings.map((s) => ({ a: s, b: [{ c: s, d: { e: s } }] }));
    assert.deepEqual(
      mismatches(values, (vs) => vs.map((v) => writeKubeYaml(v)).join("---\n")),
      [],
    );
  });
});

describe("writeGoYamlMap", () => {
  test("as go-yaml v3's Marshal, byte for byte what kyverno apply 1.19 printed for these two resources", () => {
    const configMap: JsonObject = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "cm",
        namespace: "default",
        annotations: {
          note: "a: b",
          empty: "",
          num: "0755",
          long: "aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp qqqq rrrr ssss tttt",
        },
        labels: { touched: "yes" },
      },
      data: {
        script: "#!/bin/sh\necho hello\n  indented line\n",
        trailing: "line1\nline2",
        leading: "  spaced\nnext",
        key10: "a",
        key2: "b",
        "weird key": "c",
        obj: '{"a": 1}',
      },
    };
    assert.equal(
      writeGoYamlMap(configMap),
      `${[
        "apiVersion: v1",
        "data:",
        "    key2: b",
        "    key10: a",
        "    leading: |4-",
        "          spaced",
        "        next",
        "    obj: '{\"a\": 1}'",
        "    script: |",
        "        #!/bin/sh",
        "        echo hello",
        "          indented line",
        "    trailing: |-",
        "        line1",
        "        line2",
        "    weird key: c",
        "kind: ConfigMap",
        "metadata:",
        "    annotations:",
        '        empty: ""',
        "        long: aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp qqqq rrrr ssss tttt",
        "        note: 'a: b'",
        '        num: "0755"',
        "    labels:",
        '        touched: "yes"',
        "    name: cm",
        "    namespace: default",
      ].join("\n")}\n`,
    );
    const deployment: JsonObject = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d", namespace: "default", labels: { touched: "yes" } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "x" } },
        template: {
          metadata: { labels: { app: "x" } },
          spec: {
            containers: [
              {
                name: "c",
                image: "nginx",
                args: ["--a", "-b=1", "*"],
                env: [],
                resources: {},
                ports: [{ containerPort: 80, protocol: "TCP" }],
              },
            ],
            tolerations: [{ key: "k", operator: "Exists", effect: "NoSchedule" }],
            x: [[1, 2], [3]],
          },
        },
      },
    };
    assert.equal(
      writeGoYamlMap(deployment),
      `${[
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata:",
        "    labels:",
        '        touched: "yes"',
        "    name: d",
        "    namespace: default",
        "spec:",
        "    replicas: 2",
        "    selector:",
        "        matchLabels:",
        "            app: x",
        "    template:",
        "        metadata:",
        "            labels:",
        "                app: x",
        "        spec:",
        "            containers:",
        "                - args:",
        "                    - --a",
        "                    - -b=1",
        "                    - '*'",
        "                  env: []",
        "                  image: nginx",
        "                  name: c",
        "                  ports:",
        "                    - containerPort: 80",
        "                      protocol: TCP",
        "                  resources: {}",
        "            tolerations:",
        "                - effect: NoSchedule",
        "                  key: k",
        "                  operator: Exists",
        "            x:",
        "                - - 1",
        "                  - 2",
        "                - - 3",
      ].join("\n")}\n`,
    );
  });

  test("keys in go-yaml v3's order: digit runs by value, a letter before another character only right after a digit", () => {
    assert.deepEqual(["key10", "key2", "key1"].sort(goKeyOrder), ["key1", "key2", "key10"]);
    assert.deepEqual(["B", "_"].sort(goKeyOrder), ["_", "B"]);
    assert.deepEqual(["1_", "1a"].sort(goKeyOrder), ["1a", "1_"]);
    assert.deepEqual(["ab", "a"].sort(goKeyOrder), ["a", "ab"]);
  });

  test("what it writes reads back as written: hostile strings as keys and values, in maps and sequence items at several depths", () => {
    const strings = [...fixedHostileStrings(), ...seededHostileStrings(300)];
    const values = strings.map((s) => ({ [s]: s, a: s, b: [{ c: s, d: { e: [s, { f: s }] } }, [s]] }));
    assert.deepEqual(
      mismatches(values, (vs) => vs.map((v) => writeGoYamlMap(v)).join("---\n")),
      [],
    );
  });
});
