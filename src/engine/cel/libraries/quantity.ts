/**
 * Kubernetes' quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go): `quantity`,
 * `isQuantity` and the Quantity methods, on Bylaw's exact `values/quantity` arithmetic.
 */
import {
  addQuantities,
  compareQuantities,
  formatQuantity,
  isIntegerQuantity,
  parseQuantity,
  quantityFromInt,
  quantitySign,
  quantityToFloat64,
  subtractQuantities,
  type Quantity,
} from "../../values/quantity.js";
import { CelFunctionError, equality, type CelLibrary } from "../library.js";

const TYPE = "kubernetes.Quantity";
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** A CEL value holding a quantity; `toString` gives the canonical text. */
class CelQuantity {
  constructor(readonly q: Quantity) {}
  toString(): string {
    return formatQuantity(this.q);
  }
}

function parse(s: string): CelQuantity {
  const q = parseQuantity(s);
  if (q === undefined)
    throw new CelFunctionError(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  return new CelQuantity(q);
}

function asInteger(c: CelQuantity): bigint {
  const q = c.q;
  if (!isIntegerQuantity(q)) throw new CelFunctionError("cannot convert value to integer");
  const v = q.scale >= 0 ? q.unscaled / 10n ** BigInt(q.scale) : q.unscaled * 10n ** BigInt(-q.scale);
  if (v < INT64_MIN || v > INT64_MAX) throw new CelFunctionError("cannot convert value to integer");
  return v;
}

const int = (n: bigint): CelQuantity => new CelQuantity(quantityFromInt(n, "DecimalSI"));

export function quantityLibrary(): CelLibrary {
  const cmp = (a: CelQuantity, b: CelQuantity): number => compareQuantities(a.q, b.q);
  return {
    name: "k8s.Quantity",
    types: [{ name: TYPE, ctor: CelQuantity }],
    operators: equality<CelQuantity>(TYPE, (a, b) => cmp(a, b) === 0),
    functions: [
      { signature: `quantity(string): ${TYPE}`, handler: parse },
      { signature: "isQuantity(string): bool", handler: (s: string) => parseQuantity(s) !== undefined },
      { signature: `${TYPE}.sign(): int`, handler: (a: CelQuantity) => BigInt(quantitySign(a.q)) },
      { signature: `${TYPE}.isInteger(): bool`, handler: (a: CelQuantity) => isIntegerQuantity(a.q) },
      { signature: `${TYPE}.asInteger(): int`, handler: asInteger },
      { signature: `${TYPE}.asApproximateFloat(): double`, handler: (a: CelQuantity) => quantityToFloat64(a.q) },
      {
        signature: `${TYPE}.add(${TYPE}): ${TYPE}`,
        handler: (a: CelQuantity, b: CelQuantity) => new CelQuantity(addQuantities(a.q, b.q)),
      },
      {
        signature: `${TYPE}.add(int): ${TYPE}`,
        handler: (a: CelQuantity, b: bigint) => new CelQuantity(addQuantities(a.q, int(b).q)),
      },
      {
        signature: `${TYPE}.sub(${TYPE}): ${TYPE}`,
        handler: (a: CelQuantity, b: CelQuantity) => new CelQuantity(subtractQuantities(a.q, b.q)),
      },
      {
        signature: `${TYPE}.sub(int): ${TYPE}`,
        handler: (a: CelQuantity, b: bigint) => new CelQuantity(subtractQuantities(a.q, int(b).q)),
      },
      { signature: `${TYPE}.isLessThan(${TYPE}): bool`, handler: (a: CelQuantity, b: CelQuantity) => cmp(a, b) < 0 },
      { signature: `${TYPE}.isGreaterThan(${TYPE}): bool`, handler: (a: CelQuantity, b: CelQuantity) => cmp(a, b) > 0 },
      { signature: `${TYPE}.compareTo(${TYPE}): int`, handler: (a: CelQuantity, b: CelQuantity) => BigInt(cmp(a, b)) },
    ],
  };
}
