import { z } from "zod";
import type { CallContext, Operation, ToolSpec } from "../operations/define.ts";
import { refuseControlCharacters } from "../http/input.ts";
import { execute, mergedInputSchema } from "../operations/execute.ts";
import { operations } from "../operations/index.ts";

/**
 * The MCP tools, derived from the operation registry (lib/operations): each is an operation's tool entry, with the
 * operation's input (or the tool's own argument names, where the interface fixes them), its output as structured
 * content, and the same rate limits and auth as the REST route. The MCP server, the OpenAI tool manifest, the
 * discovery payload, the server card, llms-full.txt and the "For AI agents" page all read this list.
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
  layer: 1 | 2 | 3 | 4 | 5;
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
  { layer: 2, name: "Operational", summary: "Browse and buy products; activate, validate and release licenses." },
  { layer: 3, name: "Terms", summary: "Pricing and terms of the service." },
  { layer: 4, name: "Checkout", summary: "Agent checkout with attribution." },
  { layer: 5, name: "Receipts", summary: "Portable signed receipts anyone can verify." },
] as const;

/** Tools of operations that create or pay take the idempotency key as an argument, unless they carry it elsewhere. */
function withIdempotencyKey(op: Operation, spec: ToolSpec<Record<string, unknown>, unknown>, args: z.ZodObject): z.ZodObject {
  if (!op.idempotency || spec.idempotencyKey) return args;
  return args.extend({
    idempotency_key: z
      .string()
      .regex(/^[\x21-\x7e]{1,255}$/, "must be 1 to 255 printable ASCII characters without spaces")
      .optional()
      .describe("A fresh UUID per new purchase; send the same one when retrying, so a retry returns the first answer instead of buying twice"),
  });
}

let cache: { list: Tool[]; byName: Map<string, Tool> } | undefined;

function build() {
  const list: Tool[] = [];
  for (const op of operations()) {
    for (const spec of op.tools ?? []) {
      const objectOutput = op.output instanceof z.ZodObject;
      list.push({
        name: spec.name,
        title: spec.title,
        layer: spec.layer,
        description: spec.description,
        // Strict: an argument the tool does not take is refused by name rather than silently ignored.
        input: withIdempotencyKey(op, spec, spec.args ?? mergedInputSchema(op)).strict(),
        ...(objectOutput ? { output: op.output } : {}),
        readOnly: spec.readOnly ?? true,
        operation: op,
        spec,
      });
    }
  }
  list.sort((a, b) => a.layer - b.layer);
  return { list, byName: new Map(list.map((t) => [t.name, t])) };
}

export function tools(): Tool[] {
  return (cache ??= build()).list;
}

export function toolByName(name: string): Tool | undefined {
  return (cache ??= build()).byName.get(name);
}

/** Runs a tool on arguments already parsed with its input schema, through the operation's limits, auth and handler. */
export async function callTool(t: Tool, args: Record<string, unknown>, ctx: CallContext): Promise<ToolResult> {
  refuseControlCharacters("body", args);
  const key = t.spec.idempotencyKey ? t.spec.idempotencyKey(args) : typeof args.idempotency_key === "string" ? args.idempotency_key : undefined;
  const { idempotency_key: _key, ...rest } = args;
  const input = t.spec.toInput ? t.spec.toInput(rest) : rest;
  const output = await execute(t.operation, input, key !== undefined ? { ...ctx, idempotencyKey: key } : ctx);
  return { text: t.spec.text(output), ...(t.output ? { data: output as Record<string, unknown> } : {}) };
}

/** JSON Schema of a tool's arguments, as MCP's tools/list and the OpenAI manifest publish it. */
export function toolParameters(t: Tool): Record<string, unknown> {
  const schema = z.toJSONSchema(t.input, { io: "input", target: "draft-2020-12" }) as Record<string, unknown>;
  delete schema.$schema;
  return { type: "object", properties: {}, required: [], ...schema };
}
