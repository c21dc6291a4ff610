/**
 * Kyverno's compiler (pkg/cel/compiler) wants an expression's type exactly: where cel-go infers dyn
 * (`object.spec.flag` as a validation or a matchCondition) the policy is refused with "output is
 * expected to be of type bool". Bylaw's checker infers the same types but one: cel-go types each
 * `variables.X` by X's own expression, Bylaw's has them all dyn. So an expression of type dyn is
 * refused only when every variable it reads is known to be dyn too (its own expression reads no
 * variable and is dyn); one reading a variable whose type Bylaw cannot tell is let through, never
 * refused where Kyverno accepts it. A type parameter left unresolved (`[]` is Bylaw's `list<T>`,
 * `[][0]` its `T`) is dyn to cel-go, which substitutes dyn for them when checking ends.
 */
import type { CelProgram } from "./types.js";

export class ExactTypes {
  private readonly variables = new Map<string, string | undefined>();

  /** Records a variable's type: its program's, when its expression reads no other variable; else unknown. */
  variable(name: string, program: CelProgram): void {
    this.variables.set(
      name,
      variablesRead(program.expression).length === 0 ? celGoType(program.outputType) : undefined,
    );
  }

  /** Kyverno's reason for refusing `program` ("output is expected to be of type bool"), or undefined. */
  refusal(program: CelProgram, types: readonly string[], wanted: string): string | undefined {
    const type = celGoType(program.outputType);
    if (types.includes(type)) return undefined;
    if (type === "dyn" && variablesRead(program.expression).some((v) => this.variables.get(v) !== "dyn"))
      return undefined;
    return `output is expected to be ${wanted}`;
  }
}

/** The names of the variables an expression reads (`variables.NAME`). */
function variablesRead(expression: string): string[] {
  return [...expression.matchAll(/\bvariables\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1] ?? "");
}

/** Bylaw's name for the type cel-go gives: an unresolved type parameter (`T`, `K`, `V`) is dyn; `list<dyn>` is `list`. */
function celGoType(type: string): string {
  return type
    .replace(/\b[A-Z]\b/g, "dyn")
    .replace(/\blist<dyn>/g, "list")
    .replace(/\bmap<dyn, dyn>/g, "map");
}
