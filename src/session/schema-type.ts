/**
 * The TypeScript type of the instances of a JSON Schema written as a literal (with `defineTool`'s
 * `const` inference, or `as const`), and of a schema library's object (its Standard Schema output
 * type). A small mapped type rather than json-schema-to-ts: tool schemas use a handful of
 * keywords, and the package keeps no type-level dependency (json-schema-to-ts would have to be a
 * runtime dependency for our .d.ts files to resolve, with @babel/runtime and ts-algebra).
 *
 * Covered: type (and type lists), enum, const, properties with required, additionalProperties,
 * items, anyOf/oneOf, true/false. Anything else (`$ref`, allOf, prefixItems) is `unknown`.
 */

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The instance type of a JSON Schema literal. */
export type FromJsonSchema<S> = S extends true
  ? unknown
  : S extends false
    ? never
    : S extends { readonly const: infer C }
      ? C
      : S extends { readonly enum: readonly (infer E)[] }
        ? E
        : S extends { readonly anyOf: readonly (infer B)[] }
          ? FromJsonSchema<B>
          : S extends { readonly oneOf: readonly (infer B)[] }
            ? FromJsonSchema<B>
            : S extends { readonly type: infer T }
              ? T extends readonly (infer U)[]
                ? FromType<S, U>
                : FromType<S, T>
              : unknown;

type FromType<S, T> = T extends "string"
  ? string
  : T extends "number" | "integer"
    ? number
    : T extends "boolean"
      ? boolean
      : T extends "null"
        ? null
        : T extends "array"
          ? FromArray<S>
          : T extends "object"
            ? FromObject<S>
            : unknown;

type FromArray<S> = S extends { readonly prefixItems: unknown }
  ? unknown[]
  : S extends { readonly items: infer I }
    ? FromJsonSchema<I>[]
    : unknown[];

type RequiredKeys<S> = S extends { readonly required: readonly (infer K)[] } ? K : never;

/** Properties beyond the declared ones: only where the schema allows them. */
type Extra<S> = S extends { readonly additionalProperties: false }
  ? unknown
  : S extends { readonly additionalProperties: object | true }
    ? { [key: string]: unknown }
    : S extends { readonly patternProperties: object }
      ? { [key: string]: unknown }
      : unknown;

type FromObject<S> = S extends { readonly properties: infer P }
  ? Simplify<
      { -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromJsonSchema<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: FromJsonSchema<P[K]>;
      } & Extra<S>
    >
  : { [key: string]: unknown };

/** The output type a Standard Schema (zod, ArkType, Valibot, …) declares. */
export type StandardOutput<S> = S extends { readonly "~standard": { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly output: infer O }
    ? O
    : unknown
  : unknown;

/**
 * The arguments `execute` receives for `parameters`: a schema library's output type, or the
 * instance type of a JSON Schema literal.
 *
 * @example
 * import type { ToolArguments } from "toolwright";
 * type Args = ToolArguments<{ type: "object"; properties: { city: { type: "string" } }; required: ["city"] }>;
 * // { city: string }
 */
export type ToolArguments<P> = P extends { readonly "~standard": object } ? StandardOutput<P> : FromJsonSchema<P>;
