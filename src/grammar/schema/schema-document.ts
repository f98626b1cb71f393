/**
 * A JSON Schema document with its `$ref` targets indexed: JSON pointers, embedded resources
 * (`$id`, `id` in draft 4), `$anchor` and draft-7 style `$id: "#name"` anchors. Remote
 * references are not fetched.
 */
import { SchemaError } from "./schema-error.js";

/** A subschema and where it lives. */
export interface SchemaLocation {
  readonly schema: unknown;
  /** JSON pointer from the document root, as `#/a/b`. */
  readonly pointer: string;
  /** Base URI for resolving `$ref`s inside it. */
  readonly base: string;
}

/** Base URI given to a document without `$id`. */
const DEFAULT_BASE = "toolwright:///schema.json";

/** Keywords whose values are data, not schemas (never searched for `$id`). */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "example"]);

function escapePointer(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

function resolveUri(ref: string, base: string): string {
  try {
    return new URL(ref, base).href;
  } catch {
    throw new SchemaError("#", "$ref", `cannot resolve ${JSON.stringify(ref)} against ${base}`);
  }
}

/** Splits off the fragment and percent-decodes it; `pointer` names where the `$ref`/`$id` is when it is malformed. */
function splitFragment(uri: string, pointer = "#", keyword = "$ref"): [string, string] {
  const i = uri.indexOf("#");
  if (i < 0) return [uri, ""];
  try {
    return [uri.slice(0, i), decodeURIComponent(uri.slice(i + 1))];
  } catch {
    throw new SchemaError(pointer, keyword, `${JSON.stringify(uri.slice(i))} is not a valid percent-encoded fragment`);
  }
}

/** Index of one schema document. */
export class SchemaDocument {
  /** Resources (documents and embedded `$id`s) by URI without fragment. */
  private readonly resources = new Map<string, SchemaLocation>();
  /** Anchors by full URI (`base#name`). */
  private readonly anchors = new Map<string, SchemaLocation>();
  readonly root: SchemaLocation;
  /**
   * Drafts 3 to 7 ignore every keyword beside `$ref`; 2019-09 and later apply them too. A schema
   * without `$schema` is read as the latest draft, as validators do.
   */
  readonly refOverridesSiblings: boolean;
  /** The draft named by `$schema` (3, 4, 6, 7, 2019, 2020), or null (read as the latest). */
  readonly draft: number | null;

  constructor(readonly schema: unknown) {
    const declared =
      schema !== null && typeof schema === "object" ? (schema as { $schema?: unknown }).$schema : undefined;
    const m = typeof declared === "string" ? /draft-0?(\d+)|draft\/(20\d\d)/.exec(declared) : null;
    this.draft = m ? Number(m[1] ?? m[2]) : null;
    this.refOverridesSiblings = this.draft !== null && this.draft <= 7;
    this.root = { schema, pointer: "#", base: DEFAULT_BASE };
    this.resources.set(DEFAULT_BASE, this.root);
    this.index(schema, "#", DEFAULT_BASE, true);
  }

  private index(node: unknown, pointer: string, base: string, isSchema: boolean): void {
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      node.forEach((x, i) => this.index(x, `${pointer}/${i}`, base, isSchema));
      return;
    }
    const obj = node as Record<string, unknown>;
    let here = base;
    if (isSchema) {
      const id =
        typeof obj.$id === "string"
          ? obj.$id
          : typeof obj.id === "string" && typeof obj.$ref !== "string"
            ? obj.id
            : null;
      if (id !== null) {
        const abs = resolveUri(id, base);
        const [doc, frag] = splitFragment(abs, pointer, "$id");
        if (frag !== "" && !frag.startsWith("/")) {
          this.anchors.set(`${doc}#${frag}`, { schema: node, pointer, base: doc });
        } else {
          here = doc;
          if (!this.resources.has(doc)) this.resources.set(doc, { schema: node, pointer, base: doc });
        }
      }
      if (typeof obj.$anchor === "string")
        this.anchors.set(`${here}#${obj.$anchor}`, { schema: node, pointer, base: here });
      if (typeof obj.$dynamicAnchor === "string")
        this.anchors.set(`${here}#${obj.$dynamicAnchor}`, { schema: node, pointer, base: here });
    }
    for (const [k, v] of Object.entries(obj)) {
      if (DATA_KEYWORDS.has(k)) continue;
      // Under `properties` and similar maps the keys are names, the values schemas.
      this.index(v, `${pointer}/${escapePointer(k)}`, here, true);
    }
  }

  /** The base URI inside `loc` (its own `$id` counts). */
  baseOf(loc: SchemaLocation): string {
    const s = loc.schema;
    if (s !== null && typeof s === "object" && !Array.isArray(s)) {
      const o = s as Record<string, unknown>;
      const id =
        typeof o.$id === "string" ? o.$id : typeof o.id === "string" && typeof o.$ref !== "string" ? o.id : null;
      if (id !== null) {
        const [doc] = splitFragment(resolveUri(id, loc.base), loc.pointer, "$id");
        return doc;
      }
    }
    return loc.base;
  }

  /** A child location (`keyword`, then optional path tokens) of `loc`. */
  child(loc: SchemaLocation, ...tokens: (string | number)[]): SchemaLocation {
    let node: unknown = loc.schema;
    let pointer = loc.pointer;
    for (const t of tokens) {
      node = (node as Record<string, unknown> | unknown[])[t as never];
      pointer += `/${escapePointer(String(t))}`;
    }
    return { schema: node, pointer, base: this.baseOf(loc) };
  }

  /** Resolves a `$ref` found in `loc`. Throws {@link SchemaError} naming the pointer. */
  resolve(ref: string, loc: SchemaLocation): SchemaLocation {
    const abs = resolveUri(ref, this.baseOf(loc));
    const [docUri, frag] = splitFragment(abs, loc.pointer);
    if (frag !== "" && !frag.startsWith("/")) {
      const anchor = this.anchors.get(`${docUri}#${frag}`);
      if (!anchor) throw new SchemaError(loc.pointer, "$ref", `unknown anchor ${JSON.stringify(ref)}`);
      return anchor;
    }
    const doc = this.resources.get(docUri);
    if (!doc)
      throw new SchemaError(
        loc.pointer,
        "$ref",
        `${JSON.stringify(ref)} is not in this document (remote references are not fetched)`,
      );
    if (frag === "") return doc;
    const found = this.walk(doc, frag);
    if (found) return found;
    // Lenient: validators in the wild resolve a local pointer against the document root when
    // an embedded `id` would send it to a resource that lacks it.
    const fromRoot = docUri !== DEFAULT_BASE ? this.walk(this.root, frag) : null;
    if (fromRoot) return fromRoot;
    throw new SchemaError(loc.pointer, "$ref", `${JSON.stringify(ref)} points to nothing`);
  }

  private walk(doc: SchemaLocation, frag: string): SchemaLocation | null {
    let node: unknown = doc.schema;
    let pointer = doc.pointer;
    let base = doc.base;
    for (const raw of frag.slice(1).split("/")) {
      const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (node === null || typeof node !== "object" || !Object.hasOwn(node, token)) return null;
      base = this.baseOf({ schema: node, pointer, base });
      node = (node as Record<string, unknown>)[token];
      pointer += `/${escapePointer(token)}`;
    }
    return { schema: node, pointer, base };
  }
}
