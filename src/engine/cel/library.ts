/** How a CEL function library is declared: signatures in cel-js's notation and their handlers. */

export interface CelFunction {
  /** e.g. `string.charAt(int): string`, `quantity(string): kubernetes.Quantity`. */
  readonly signature: string;
  readonly handler: (...args: never[]) => unknown;
}

export interface CelLibrary {
  /** The name cel-go or Kubernetes gives the library, e.g. `ext.Strings(v2)`, `k8s.Quantity`. */
  readonly name: string;
  /** Object types the library's values have (name → class, and the CEL types of fields an expression may select). */
  readonly types?: readonly {
    readonly name: string;
    readonly ctor: abstract new (...args: never[]) => unknown;
    readonly fields?: Readonly<Record<string, string>>;
  }[];
  /** Namespace objects such as `math` or `base64`: a constant of a type with receiver functions. */
  readonly constants?: readonly { readonly name: string; readonly type: string; readonly value: unknown }[];
  readonly functions: readonly CelFunction[];
  /** Operator overloads such as `net.IP == net.IP` (cel-js's notation). */
  readonly operators?: readonly CelFunction[];
}

/** `==` for a library's value type, by the given equality (cel-js derives `!=` from it). */
export function equality<T>(type: string, same: (a: T, b: T) => boolean): CelFunction[] {
  return [{ signature: `${type} == ${type}`, handler: (a: T, b: T) => same(a, b) }];
}

/** A namespace like `math.` or `base64.`: a constant whose type carries the functions. */
export function namespace(name: string, typeName: string): Pick<CelLibrary, "types" | "constants"> {
  const ctor = class {};
  Object.defineProperty(ctor, "name", { value: typeName });
  return { types: [{ name: typeName, ctor }], constants: [{ name, type: typeName, value: new ctor() }] };
}

/** The error a function raises; cel-js reports it at the call with its message. */
export class CelFunctionError extends Error {}
