import { functionTable } from "../../../../../test/support/function-table.js";

functionTable("abs, ceil, floor", [
  ["abs(`-1.5`)", null, 1.5],
  ["abs(`2`)", null, 2],
  ["abs(@)", "1", { error: 'Invalid type for: 1, expected: []jmespath.JpType{"number"}', kind: "invalid-type" }],
  ["ceil(`1.2`)", null, 2],
  ["ceil(`-1.2`)", null, -1],
  ["floor(`1.8`)", null, 1],
  ["floor(`-1.2`)", null, -2],
  ["floor(@)", null, { error: 'Invalid type for: <nil>, expected: []jmespath.JpType{"number"}' }],
]);

functionTable("avg and sum", [
  ["avg(@)", [1, 2, 3, 4], 2.5],
  ["avg(@)", [10], 10],
  ["avg(@)", [1, "2"], { error: 'Invalid type for: [1 2], expected: []jmespath.JpType{"array[number]"}' }],
  ["sum(@)", [1, 2, 3.5], 6.5],
  ["sum(@)", [], 0],
  ["sum(@)", ["a"], { error: 'Invalid type for: [a], expected: []jmespath.JpType{"array[number]"}' }],
]);
