/** The shape of the generated validators (validators-data.ts): ajv's standalone functions, verbose errors. */

/** One schema violation as ajv reports it (`verbose: true`, so with the schema around the keyword). */
export interface SchemaError {
  /** JSON Pointer to the value, e.g. `/spec/rules/0`. */
  readonly instancePath: string;
  /** `type`, `enum`, `required`, `additionalProperties`, `oneOf`, `not`, `maxLength`, `pattern`, … */
  readonly keyword: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly message?: string;
  /** The schema holding the keyword (for `additionalProperties`, the object schema with its `properties`). */
  readonly parentSchema?: { readonly properties?: Readonly<Record<string, unknown>> };
  /** The value at `instancePath`. */
  readonly data?: unknown;
}

/**
 * A compiled schema: true when the document conforms (then it has the shape `T` describes);
 * otherwise `errors` says where and why.
 */
export interface SchemaValidator<T = unknown> {
  (data: unknown): data is T;
  errors?: readonly SchemaError[] | null;
}
