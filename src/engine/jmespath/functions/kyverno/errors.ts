/** Kyverno's JMESPath function error texts (`pkg/engine/jmespath/error.go`), as JmesPathError values. */
import { JmesPathError } from "../../types.js";

/** `JMESPath function '<name>': <message>` — Kyverno's generic function error. */
export function functionError(name: string, message: string): JmesPathError {
  return new JmesPathError("function", `JMESPath function '${name}': ${message}`);
}

/** `JMESPath function '<name>': argument #<n> is not of type <type>`. */
export function argumentTypeError(name: string, position: number, type: string): JmesPathError {
  return new JmesPathError("invalid-type", `JMESPath function '${name}': argument #${position} is not of type ${type}`);
}

export function zeroDivisionError(name: string): JmesPathError {
  return functionError(name, "Zero divisor passed");
}

export function nonIntModuloError(name: string): JmesPathError {
  return functionError(name, "Non-integer argument(s) passed for modulo");
}

export function typeMismatchError(name: string): JmesPathError {
  return functionError(name, "Types mismatch");
}

/** An error Kyverno passes through from a Go library unchanged (no function prefix). */
export function goError(message: string): JmesPathError {
  return new JmesPathError("function", message);
}
