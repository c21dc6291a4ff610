import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseDocuments } from "./parse-documents.js";

const one = (text: string): unknown => {
  const docs = parseDocuments(text, "t.yaml");
  assert.equal(docs.length, 1);
  assert.equal(docs[0]?.error, undefined, docs[0]?.error);
  return docs[0]?.value;
};
const errorOf = (text: string): string | undefined => parseDocuments(text, "t.yaml")[0]?.error;

describe("parseDocuments: Kubernetes scalar semantics", () => {
  it("reads YAML 1.1 booleans, octal/hex ints and nulls; keeps timestamps and quoted text as strings", () => {
    assert.deepEqual(
      one(
        "a: yes\nb: Off\nc: 0777\nd: 0x1F\ne: ~\nf: null\ng: 2024-01-01\nh: 2024-01-01T10:00:00Z\ni: '0777'\nj: \"yes\"\nk: |\n  on\nl: 1.0\nm:\n",
      ),
      {
        a: true,
        b: false,
        c: 511,
        d: 31,
        e: null,
        f: null,
        g: "2024-01-01",
        h: "2024-01-01T10:00:00Z",
        i: "0777",
        j: "yes",
        k: "on\n",
        l: 1,
        m: null,
      },
    );
  });

  it('turns non-string keys into strings as JSON conversion does (y/on keys become "true")', () => {
    assert.deepEqual(one("1: a\ntrue: b\non: c\n0x10: d\n1.5: e\n2024-01-01: f\n"), {
      "1": "a",
      true: "c",
      "16": "d",
      "1.5": "e",
      "2024-01-01": "f",
    });
  });

  it("keeps the last value of a repeated key", () => {
    assert.deepEqual(one("a: 1\nb: 2\na: 3\n"), { a: 3, b: 2 });
  });

  it("honours explicit tags", () => {
    assert.deepEqual(one("a: !!str 0777\nb: !!int '12'\nc: !custom 5\n"), { a: "0777", b: 12, c: "5" });
    assert.match(errorOf("a: !!int abc\n") ?? "", /cannot decode !!str `abc` as a !!int at line 1, column 4/);
  });

  it("keeps a __proto__ key as data", () => {
    const value = one("__proto__:\n  polluted: true\n") as Record<string, unknown>;
    assert.deepEqual(Object.keys(value), ["__proto__"]);
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
  });

  it("rejects NaN and infinities, which JSON cannot hold", () => {
    assert.match(errorOf("a: .inf\n") ?? "", /JSON has no NaN or infinities/);
  });

  it("reads JSON text as YAML", () => {
    assert.deepEqual(one('{"kind": "Pod", "spec": {"containers": [{"name": "a", "ports": [80, 443]}]}}'), {
      kind: "Pod",
      spec: { containers: [{ name: "a", ports: [80, 443] }] },
    });
  });
});

describe("parseDocuments: documents", () => {
  it("returns every document in order with index and starting line, empty ones without a value", () => {
    const docs = parseDocuments(
      "# header\n---\nkind: A\n---\n# commented out\n---\n\n---\nkind: B\n---\n~\n",
      "multi.yaml",
    );
    assert.deepEqual(docs, [
      { source: "multi.yaml", index: 0, line: 3, value: { kind: "A" } },
      { source: "multi.yaml", index: 1, line: 5 },
      { source: "multi.yaml", index: 2, line: 7 },
      { source: "multi.yaml", index: 3, line: 9, value: { kind: "B" } },
      { source: "multi.yaml", index: 4, line: 11 },
    ]);
  });

  it("gives a broken document its own error, naming source, document, and absolute line/column, and keeps the others", () => {
    const text = "kind: A\n---\nkind: B\nspec:\n  a: 1\n   b: 2\n---\nkind: C\n";
    const docs = parseDocuments(text, "policy.yaml");
    assert.deepEqual(
      docs.map((d) => d.value),
      [{ kind: "A" }, undefined, { kind: "C" }],
    );
    assert.equal(
      docs[1]?.error,
      "policy.yaml: document 2 (line 3): bad indentation of a mapping entry at line 6, column 5",
    );
  });

  it("reports a malformed separator on its own document", () => {
    const docs = parseDocuments("kind: A\n--- kind: B\n---\nkind: C\n", "s.yaml");
    assert.equal(docs[1]?.error, "s.yaml: document 2 (line 2): invalid YAML document separator: kind: B");
    assert.deepEqual(docs[2]?.value, { kind: "C" });
  });

  it("ignores a byte-order mark and reads CRLF text", () => {
    assert.deepEqual(
      parseDocuments("\uFEFFa: 1\r\n---\r\nb: 2\r\n", "w.yaml").map((d) => d.value),
      [{ a: 1 }, { b: 2 }],
    );
  });

  it("reads only the first document when a --- separator is missing after '...'", () => {
    assert.deepEqual(
      parseDocuments("a: 1\n...\nb: 2\n", "e.yaml").map((d) => d.value),
      [{ a: 1 }],
    );
  });
});

describe("parseDocuments: anchors, aliases and merge keys", () => {
  it("expands aliases into independent copies", () => {
    const value = one("base: &b {x: [1, 2]}\ncopy: *b\nlist: [&s str, *s]\n") as Record<
      string,
      Record<string, number[]>
    >;
    assert.deepEqual(value, { base: { x: [1, 2] }, copy: { x: [1, 2] }, list: ["str", "str"] });
    assert.notEqual(value["base"], value["copy"]);
    assert.notEqual(value["base"]?.["x"], value["copy"]?.["x"]);
  });

  it("merges << maps in order, as go-yaml v2 does", () => {
    const text =
      "defaults: &d {image: nginx, replicas: 1, port: 80}\nextra: &e {port: 8080, tier: web}\n" +
      "app:\n  replicas: 5\n  <<: [*d, *e]\n  port: 9090\n";
    assert.deepEqual((one(text) as Record<string, unknown>)["app"], {
      replicas: 1,
      image: "nginx",
      port: 9090,
      tier: "web",
    });
  });

  it("rejects a merge of something that is not a map", () => {
    assert.match(
      errorOf("a: &a [1]\nb:\n  <<: *a\n") ?? "",
      /map merge requires map or sequence of maps as the value at line 3, column 7/,
    );
  });

  it("reports unknown and self-referencing anchors", () => {
    assert.match(errorOf("a: *missing\n") ?? "", /unknown anchor 'missing' referenced at line 1, column 4/);
    assert.match(errorOf("a: &a [*a]\n") ?? "", /anchor 'a' value contains itself/);
  });

  it("rejects an alias bomb quickly", () => {
    const names = "abcdefghij";
    let text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
    for (let i = 1; i < names.length; i++)
      text += `${names[i]}: &${names[i]} [${Array(10)
        .fill(`*${names[i - 1]}`)
        .join(",")}]\n`;
    const started = performance.now();
    const docs = parseDocuments(text, "bomb.yaml");
    assert.match(docs[0]?.error ?? "", /^bomb\.yaml: document 1 \(line 1\): document contains excessive aliasing/);
    assert.ok(performance.now() - started < 2000);
  });

  it("caps the nodes made by aliases", () => {
    const text = "a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9]\nb: [*a, *a, *a]\n";
    assert.match(
      parseDocuments(text, "t.yaml", { maxAliasNodes: 20 })[0]?.error ?? "",
      /more than 20 nodes expanded from aliases/,
    );
  });
});

describe("parseDocuments: limits", () => {
  it("refuses text over the size cap", () => {
    assert.deepEqual(parseDocuments("a: 1\n".repeat(10), "big.yaml", { maxBytes: 20 }), [
      { source: "big.yaml", index: 0, line: 1, error: "big.yaml: input is too large (50 characters; the limit is 20)" },
    ]);
  });

  it("refuses nesting deeper than the depth cap without crashing", () => {
    const deep = `${"[".repeat(50)}${"]".repeat(50)}`;
    assert.match(
      parseDocuments(deep, "deep.yaml", { maxDepth: 10 })[0]?.error ?? "",
      /^deep\.yaml: document 1 \(line 1\): /,
    );
    const veryDeep = `${"[".repeat(100000)}${"]".repeat(100000)}`;
    assert.ok(parseDocuments(veryDeep, "deep.yaml", { maxDepth: 1_000_000 })[0]?.error);
  });
});
