/**
 * OpenAI's strict mode for function calling (Structured Outputs) accepts a subset of JSON Schema: every object closed
 * (`additionalProperties: false`) with every property listed in `required` (an optional one made nullable instead),
 * no `default`, length or property-count keywords, `oneOf`/`allOf`/`not`, only a few string formats, no regex
 * look-around, and arrays that type their items. This turns a tool's published JSON Schema into that subset for
 * /api/tools. What is dropped is not lost: it is added to the property's description in words, so the model still
 * reads the limit, and the server enforces it (and reads a `null` on an optional argument as "not given"). Objects
 * that take extra keys are closed, so a strict caller sends only the named ones (a free-form map, only `{}`).
 */
type Schema = Record<string, unknown>;

/** Keywords strict mode refuses, and how a dropped one is said in the description. */
const DROPPED: Partial<Record<string, (v: unknown) => string>> = {
  default: (v) => `default ${JSON.stringify(v)}`,
  minLength: (v) => `at least ${String(v)} characters`,
  maxLength: (v) => `at most ${String(v)} characters`,
  minProperties: (v) => `at least ${String(v)} properties`,
  maxProperties: (v) => `at most ${String(v)} properties`,
  uniqueItems: () => "no duplicates",
  patternProperties: () => "",
  propertyNames: () => "",
  unevaluatedProperties: () => "",
  unevaluatedItems: () => "",
  contains: () => "",
  minContains: () => "",
  maxContains: () => "",
  $schema: () => "",
  title: () => "",
};

/** The string formats strict mode knows; others are dropped and said in words. */
const STRICT_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);

const PRIMITIVES = new Set(["string", "number", "integer", "boolean"]);

const LOOKAROUND = /\(\?<?[=!]/;

/** A node strict mode cannot describe (an array without an item schema). */
class Unrepresentable extends Error {}

function withNote(node: Schema, notes: string[]): Schema {
  const said = notes.filter(Boolean);
  if (!said.length) return node;
  const description = typeof node.description === "string" ? node.description : "";
  return { ...node, description: description ? `${description} (${said.join("; ")})` : said.join("; ") };
}

/** The node, also accepting null: how strict mode says "optional". */
function nullable(node: Schema): Schema {
  const type = node.type;
  if (Array.isArray(type)) return type.includes("null") ? node : { ...node, type: [...(type as unknown[]), "null"] };
  if (typeof type === "string" && PRIMITIVES.has(type) && !("const" in node)) {
    const out: Schema = { ...node, type: [type, "null"] };
    if (Array.isArray(node.enum)) out.enum = [...(node.enum as unknown[]), null];
    return out;
  }
  if (Array.isArray(node.anyOf)) {
    const members = node.anyOf as Schema[];
    return members.some((m) => m.type === "null") ? node : { ...node, anyOf: [...members, { type: "null" }] };
  }
  const { description, ...rest } = node;
  return { ...(description !== undefined ? { description } : {}), anyOf: [rest, { type: "null" }] };
}

function strictNode(input: Schema): Schema {
  const notes: string[] = [];
  const node: Schema = {};
  for (const [k, v] of Object.entries(input)) {
    const dropped = DROPPED[k];
    if (dropped) notes.push(dropped(v));
    else if (k === "format" && !STRICT_FORMATS.has(String(v))) notes.push(`format ${String(v)}`);
    else if (k === "pattern" && LOOKAROUND.test(String(v))) notes.push(`matching ${String(v)}`);
    else if (k === "oneOf") node.anyOf = (v as Schema[]).map(strictNode);
    else if (k === "anyOf") node.anyOf = (v as Schema[]).map(strictNode);
    else if (k === "allOf" && Array.isArray(v) && v.length === 1) Object.assign(node, strictNode(v[0] as Schema));
    else node[k] = v;
  }
  if (node.type === "object" || (Array.isArray(node.type) && node.type.includes("object"))) Object.assign(node, strictObject(node, notes));
  if (node.type === "array") {
    const items = node.items;
    if (!items || typeof items !== "object" || Array.isArray(items)) throw new Unrepresentable("an array without a typed item schema");
    node.items = strictNode(items as Schema);
  }
  return withNote(node, notes);
}

function strictObject(node: Schema, notes: string[]): Schema {
  const properties = (node.properties ?? {}) as Record<string, Schema>;
  const free = node.additionalProperties !== undefined && node.additionalProperties !== false;
  // A map of free-form keys cannot be said in strict mode: a strict caller sends it empty ({}).
  if (free && Object.keys(properties).length === 0) notes.push("free-form keys are not offered in strict mode: send {}");
  const required = new Set((node.required as string[] | undefined) ?? []);
  const out: Record<string, Schema> = {};
  const left: string[] = [];
  for (const [name, p] of Object.entries(properties)) {
    try {
      const strict = strictNode(p);
      out[name] = required.has(name) ? strict : nullable(strict);
    } catch (error) {
      // An optional argument strict mode cannot describe is left out of the strict form: the call works without it.
      if (!(error instanceof Unrepresentable) || required.has(name)) throw error;
      left.push(name);
    }
  }
  if (left.length) notes.push(`not offered in strict mode: ${left.join(", ")}`);
  return { properties: out, required: Object.keys(out), additionalProperties: false };
}

/**
 * The strict-mode form of a tool's parameters, or null when a required argument cannot be said in strict mode (the
 * manifest then publishes the full schema with `strict: false`).
 */
export function strictParameters(parameters: Schema): Schema | null {
  try {
    return strictNode(parameters);
  } catch (error) {
    if (error instanceof Unrepresentable) return null;
    throw error;
  }
}
