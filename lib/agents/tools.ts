import { z } from "zod";
import type { CallContext, Operation, ToolSpec } from "../operations/define.ts";
import { AppError, type ProblemFieldError } from "../http/errors.ts";
import { refuseControlCharacters } from "../http/input.ts";
import { execute, mergedInputSchema } from "../operations/execute.ts";
import { readOnlyOf } from "../operations/guarantees.ts";
import { domainOperations } from "../operations/domains.ts";

/**
 * The MCP tools, derived from the operation registry (lib/operations): each is an operation's tool entry, with the
 * operation's input (or the tool's own argument names, where the interface fixes them), its output as structured
 * content, and the same rate limits and auth as the REST route. The MCP server, the OpenAI tool manifest, the
 * discovery payload, the server card, llms-full.txt and the "For AI agents" page all read `tools()`, the public list.
 * The tools of `seller` operations (`sellerTools()`) are apart: MCP offers them only on a request carrying a valid
 * seller API token, and no public document lists them.
 */
export interface ToolResult {
  /** What the model reads. */
  text: string;
  /** The same facts as data, in the REST shape, when the result is an object. */
  data?: Record<string, unknown>;
}

export interface Tool {
  name: string;
  title: string;
  layer: ToolSpec<unknown, unknown>["layer"];
  description: string;
  input: z.ZodObject;
  /** Declared when the result is an object (it is then also `structuredContent`). */
  output?: z.ZodType;
  readOnly: boolean;
  operation: Operation;
  spec: ToolSpec<Record<string, unknown>, unknown>;
}

export const LAYERS = [
  { layer: 1, name: "Discovery", summary: "Learn how licensing works here and generate what you need to integrate it." },
  { layer: 2, name: "Operational", summary: "Browse products, start trials; activate, validate and release licenses, fetch offline license files." },
  { layer: 3, name: "Terms", summary: "Pricing and terms of the service." },
  {
    layer: 4,
    name: "Checkout",
    summary:
      "Pay by yourself with the Agentic Commerce Protocol (create_checkout_session, delegate_payment, complete_checkout_session), or open a hosted checkout a person pays (agent_checkout) and follow it up (get_checkout_status).",
  },
  { layer: 5, name: "Receipts", summary: "Portable signed receipts anyone can verify." },
] as const;

/** The seller's own tools: not one of the public LAYERS, so the public documents never list them. */
const SELLER_LAYER = 6;

/** Tools of operations that take an idempotency key take it as an argument, unless they carry it elsewhere. */
function withIdempotencyKey(op: Operation, spec: ToolSpec<Record<string, unknown>, unknown>, args: z.ZodObject): z.ZodObject {
  if (!op.idempotency || spec.idempotencyKey) return args;
  return args.extend({
    idempotency_key: z
      .string()
      .regex(/^[\x21-\x7e]{1,255}$/, "must be 1 to 255 printable ASCII characters without spaces")
      .optional()
      .describe("A fresh UUID per new request; send the same one when retrying, so a retry returns the first answer instead of doing it twice"),
  });
}

let cache: { list: Tool[]; byName: Map<string, Tool>; seller: Tool[] } | undefined;

function build() {
  const list: Tool[] = [];
  const seller: Tool[] = [];
  for (const op of domainOperations()) {
    for (const spec of op.tools ?? []) {
      const objectOutput = op.output instanceof z.ZodObject;
      // A seller tool in a public layer would show in the public documents (and A2A), a public one in the seller's
      // layer would vanish from them: both are declaration mistakes.
      if ((op.auth === "seller") !== (spec.layer === SELLER_LAYER))
        throw new Error(`tool ${spec.name}: tools of seller operations (and only they) take layer ${SELLER_LAYER}`);
      (op.auth === "seller" ? seller : list).push({
        name: spec.name,
        title: spec.title,
        layer: spec.layer,
        description: spec.description,
        // Strict: an argument the tool does not take is refused by name rather than silently ignored.
        input: withIdempotencyKey(op, spec, spec.args ?? mergedInputSchema(op)).strict(),
        ...(objectOutput ? { output: op.output } : {}),
        readOnly: readOnlyOf(op),
        operation: op,
        spec,
      });
    }
  }
  list.sort((a, b) => a.layer - b.layer);
  return { list, byName: new Map(list.map((t) => [t.name, t])), seller };
}

/** The public tools: what MCP offers everyone and what every discovery document lists. */
export function tools(): Tool[] {
  return (cache ??= build()).list;
}

/** A public tool by name (A2A's skills); seller tools are not found here. */
export function toolByName(name: string): Tool | undefined {
  return (cache ??= build()).byName.get(name);
}

/**
 * The seller's own tools (the `seller` operations' tools), offered on MCP only to a request whose seller API token
 * was verified; each call still authenticates the token and checks its scope through the operation (execute).
 */
export function sellerTools(): Tool[] {
  return (cache ??= build()).seller;
}

/** Where an MCP tool names a field it refuses: the argument's dotted path, as REST names a body field. */
const UNKNOWN_ARGUMENT = "is not an argument of this tool";

function argumentErrors(error: z.ZodError): ProblemFieldError[] {
  return error.issues.flatMap((issue) => {
    const at = issue.path.map(String);
    // One entry per unknown argument, by name: a misspelt argument must not pass unnoticed.
    if (issue.code === "unrecognized_keys") return issue.keys.map((k) => ({ in: "body", name: [...at, k].join("."), message: UNKNOWN_ARGUMENT }));
    return [{ in: "body", name: at.join(".") || "(root)", message: issue.message }];
  });
}

/**
 * A tool's arguments as the caller sent them, checked the way REST checks a body: control characters refused, a
 * `null` on an optional argument read as absent (OpenAI's strict mode sends null for what the model leaves out),
 * then the tool's schema, every refusal named (`invalid_body`, one entry per bad or unknown argument).
 */
function parseToolArguments(t: Tool, raw: unknown): Record<string, unknown> {
  const args = raw === undefined || raw === null ? {} : raw;
  refuseControlCharacters("body", args);
  const result = t.input.safeParse(dropNullOptionals(t.input, args));
  if (result.success) return result.data;
  const errors = argumentErrors(result.error);
  const first = errors[0] ?? { in: "body", name: "(root)", message: "is invalid" };
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  throw new AppError("invalid_body", 400, `Invalid argument "${first.name}" for ${t.name}: ${first.message}${more}`, { errors });
}

/** The schema inside optional, default, nullable and pipe wrappers: what a present value must be. */
function innerSchema(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
    else return s;
  }
}

/** Accepts undefined but not null: an argument the caller may leave out, which strict-mode callers send as null. */
function absentWhenNull(schema: z.ZodType): boolean {
  return schema.safeParse(undefined).success && !schema.safeParse(null).success;
}

/** Removes `null` where the schema means "absent" (optional and not nullable), at every object level. */
function dropNullOptionals(schema: z.ZodType, value: unknown): unknown {
  const inner = innerSchema(schema);
  if (Array.isArray(value) && inner instanceof z.ZodArray) return value.map((v) => dropNullOptionals(inner.element as z.ZodType, v));
  if (value === null || typeof value !== "object" || Array.isArray(value) || !(inner instanceof z.ZodObject)) return value;
  const shape = inner.shape as Record<string, z.ZodType>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const field = shape[k];
    if (v === null && field && absentWhenNull(field)) continue;
    out[k] = field ? dropNullOptionals(field, v) : v;
  }
  return out;
}

/** Runs a tool on the arguments as sent (parsed here with its schema), through the operation's limits, auth and handler. */
export async function callTool(t: Tool, raw: unknown, ctx: CallContext): Promise<ToolResult> {
  const args = parseToolArguments(t, raw);
  const key = t.spec.idempotencyKey ? t.spec.idempotencyKey(args) : typeof args.idempotency_key === "string" ? args.idempotency_key : undefined;
  const { idempotency_key: _key, ...rest } = args;
  const input = t.spec.toInput ? t.spec.toInput(rest) : rest;
  const output = await execute(
    t.operation,
    input,
    key !== undefined ? { ...ctx, idempotencyKey: key } : ctx,
    t.spec.idempotencyKeyOptional !== undefined ? { keyOptional: true } : undefined,
  );
  return { text: t.spec.text(output), ...(t.output ? { data: output as Record<string, unknown> } : {}) };
}

/** JSON Schema of a tool's arguments, as MCP's tools/list and the OpenAI manifest publish it. */
export function toolParameters(t: Tool): Record<string, unknown> {
  const schema = z.toJSONSchema(t.input, { io: "input", target: "draft-2020-12" }) as Record<string, unknown>;
  delete schema.$schema;
  return { type: "object", properties: {}, required: [], ...schema };
}
