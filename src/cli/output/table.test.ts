/** The test and apply tables against what Kyverno's table printer prints. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { renderTable } from "./table.js";

/**
 * Printed by a Go program with Kyverno 1.19's table printer (github.com/lensesio/tableprinter at the
 * version Kyverno's go.mod pins, configured as cmd/cli/kubectl-kyverno/output/table/printer.go does,
 * colours off) for the rows below: eleven rows (the first header counts them), one message of 353
 * bytes (wrapped), and three rows without MESSAGE.
 */
const KYVERNO_DETAILED = `│──────────│────────│───────│──────────────────────│────────│────────│───────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────│
│ ID (11)  │ POLICY │ RULE  │ RESOURCE             │ RESULT │ REASON │ MESSAGE                                                                                                                                                                                                                                                   │
│──────────│────────│───────│──────────────────────│────────│────────│───────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────│
│ 1        │ p      │ check │ v1/Pod/default/pod1  │ Pass   │ Ok     │ validation rule 'check' passed.                                                                                                                                                                                                                           │
│ 2        │ p      │ check │ v1/Pod/default/pod2  │ Pass   │ Ok     │ word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word │
│          │        │       │                      │        │        │ word word word word word word word word word word word word word word word word word word word word end                                                                                                                                                   │
│ 3        │ p      │ check │ v1/Pod/default/pod3  │ Pass   │ Ok     │ validation rule 'check' passed.                                                                                                                                                                                                                           │
│ 4        │ p      │ check │ v1/Pod/default/pod4  │ Pass   │ Ok     │ validation rule 'check' passed.                                                                                                                                                                                                                           │
│ 5        │ p      │ check │ v1/Pod/default/pod5  │ Pass   │ Ok     │ validation rule 'check' passed.                                                                                                                                                                                                                           │
│ 6        │ p      │ check │ v1/Pod/default/pod6  │ Pass   │ Ok     │ validation rule 'check' passed.                                                                                                                                                                                                                           │
│ 7        │ p      │ check │ v1/Pod/default/pod7  │ Pass   │ Ok     │ validation rule 'check' passed.                                                                                                                                                                                                                           │
│ 8        │ p      │ check │ v1/Pod/default/pod8  │ Pass   │ Ok     │ validation rule 'check' passed.                                                                                                                                                                                                                           │
│ 9        │ p      │ check │ v1/Pod/default/pod9  │ Pass   │ Ok     │ validation rule 'check' passed.                                                                                                                                                                                                                           │
│ 10       │ p      │ check │ v1/Pod/default/pod10 │ Pass   │ Ok     │ validation rule 'check' passed.                                                                                                                                                                                                                           │
│ 11       │ p      │ check │ v1/Pod/default/pod11 │ Pass   │ Ok     │ validation rule 'check' passed.                                                                                                                                                                                                                           │
│──────────│────────│───────│──────────────────────│────────│────────│───────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────│`;
const KYVERNO_COMPACT = `│────│────────│───────│─────────────────────│────────│────────│
│ ID │ POLICY │ RULE  │ RESOURCE            │ RESULT │ REASON │
│────│────────│───────│─────────────────────│────────│────────│
│ 1  │ p      │ check │ v1/Pod/default/pod1 │ Pass   │ Ok     │
│ 2  │ p      │ check │ v1/Pod/default/pod2 │ Pass   │ Ok     │
│ 3  │ p      │ check │ v1/Pod/default/pod3 │ Pass   │ Ok     │
│────│────────│───────│─────────────────────│────────│────────│`;

const LONG = `${"word ".repeat(70)}end`;
const rows = Array.from({ length: 11 }, (_, i) => [
  String(i + 1),
  "p",
  "check",
  `v1/Pod/default/pod${i + 1}`,
  "Pass",
  "Ok",
  i === 1 ? LONG : "validation rule 'check' passed.",
]);
const HEADERS = ["ID", "POLICY", "RULE", "RESOURCE", "RESULT", "REASON", "MESSAGE"];
const PLAIN = { plain: true };

describe("renderTable: Kyverno's table printer", () => {
  test("more than ten rows: the first header counts them; a cell over 300 bytes wraps at word boundaries", () => {
    assert.equal(renderTable(HEADERS, rows, PLAIN), KYVERNO_DETAILED);
  });

  test("ten rows or fewer: the plain header", () => {
    assert.equal(
      renderTable(
        HEADERS.slice(0, 6),
        rows.slice(0, 3).map((r) => r.slice(0, 6)),
        PLAIN,
      ),
      KYVERNO_COMPACT,
    );
  });

  test("a cell's own line breaks stack its lines in the row, the other cells padded", () => {
    assert.deepEqual(renderTable(["A", "B"], [["x", "one\ntwo"]], PLAIN).split("\n"), [
      "│───│─────│",
      "│ A │ B   │",
      "│───│─────│",
      "│ x │ one │",
      "│   │ two │",
      "│───│─────│",
    ]);
  });

  test("without --remove-color the header cells are in Kyverno's colours, each padded cell inside them; rows stay plain", () => {
    assert.deepEqual(renderTable(["ID", "RESULT"], [["1", "Pass"]], { plain: false }).split("\n"), [
      "│────│────────│",
      "│ \x1b[40;32mID\x1b[0m │ \x1b[40;32mRESULT\x1b[0m │",
      "│────│────────│",
      "│ 1  │ Pass   │",
      "│────│────────│",
    ]);
    assert.deepEqual(
      renderTable(["ID", "POLICY"], [["1", "long-policy"]], { plain: false }).split("\n")[1],
      "│ \x1b[40;32mID\x1b[0m │ \x1b[40;32mPOLICY     \x1b[0m │",
    );
  });
});
