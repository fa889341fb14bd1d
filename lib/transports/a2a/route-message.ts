import type { Part } from "@a2a-js/sdk";
import { z } from "zod";
import { AppError } from "../../http/errors.ts";
import { invalid, parseJsonText } from "../../http/input.ts";
import { toolByName, tools, type Tool } from "../../agents/tools.ts";

/**
 * Which skill an A2A message runs, and with which arguments (the rule A2A_ROUTING states in the agent card):
 * - a data part `{skill, arguments}` runs that skill (one data part per message);
 * - a text part holding that JSON object does the same;
 * - text starting with a skill id runs it, with a JSON object after the id as its arguments; after
 *   browse_marketplace, any other text is the search query;
 * - any other text is a marketplace search (browse_marketplace with the text as query).
 * The arguments are parsed with the tool's own (strict) schema, so an unknown or malformed argument is refused by name,
 * exactly as over MCP.
 */

const SEARCH_SKILL = "browse_marketplace";

const invocationSchema = z
  .object({
    skill: z.string().min(1).max(100),
    arguments: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

function unknownSkill(name: string): AppError {
  const names = tools().map((t) => t.name);
  return new AppError("unknown_skill", 400, `There is no skill "${name}". Available skills: ${names.join(", ")}.`, {
    errors: [{ in: "body", name: "skill", message: `must be one of: ${names.join(", ")}` }],
  });
}

/**
 * A tool's arguments as sent: callTool checks them with the tool's own schema (control characters, unknown arguments
 * by name, null on an optional argument read as absent), exactly as for an MCP call. Only their being an object is
 * checked here.
 */
function parsedArguments(_tool: Tool, args: unknown): Record<string, unknown> {
  if (typeof args !== "object" || args === null || Array.isArray(args))
    throw new AppError("invalid_body", 400, "A skill's arguments must be one JSON object.", {
      errors: [{ in: "body", name: "arguments", message: "must be a JSON object" }],
    });
  return args as Record<string, unknown>;
}

function invocation(value: unknown): { tool: Tool; args: Record<string, unknown> } {
  const result = invocationSchema.safeParse(value);
  if (!result.success) throw invalid("body", result.error);
  const tool = toolByName(result.data.skill);
  if (!tool) throw unknownSkill(result.data.skill);
  return { tool, args: parsedArguments(tool, result.data.arguments ?? {}) };
}

function fromText(text: string): { tool: Tool; args: Record<string, unknown> } {
  if (text.startsWith("{")) return invocation(parseJsonText(text));
  const [first = ""] = text.split(/\s/, 1);
  const rest = text.slice(first.length).trim();
  const tool = toolByName(first);
  if (!tool) {
    // A snake_case word alone or before a JSON object is a skill call with a mistyped id, not a search.
    if (/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/.test(first) && (rest === "" || rest.startsWith("{"))) throw unknownSkill(first);
    const search = toolByName(SEARCH_SKILL);
    if (!search) throw unknownSkill(SEARCH_SKILL);
    return { tool: search, args: parsedArguments(search, { query: text }) };
  }
  if (rest === "") return { tool, args: parsedArguments(tool, {}) };
  if (rest.startsWith("{")) return { tool, args: parsedArguments(tool, parseJsonText(rest)) };
  if (tool.name === SEARCH_SKILL) return { tool, args: parsedArguments(tool, { query: rest }) };
  throw new AppError("invalid_arguments", 400, `After the skill id "${tool.name}", send its arguments as one JSON object.`, {
    errors: [{ in: "body", name: "arguments", message: "must be a JSON object" }],
  });
}

export function routeMessage(parts: Part[]): { tool: Tool; args: Record<string, unknown> } {
  const data = parts.filter((p) => p.content?.$case === "data");
  if (data.length > 1) throw new AppError("one_skill_per_message", 400, "Send one data part {skill, arguments} per message.");
  if (data[0]?.content?.$case === "data") return invocation(data[0].content.value);
  const text = parts
    .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
    .join("\n")
    .trim();
  if (text !== "") return fromText(text);
  if (parts.some((p) => p.content !== undefined)) {
    throw new AppError("unsupported_part", 400, "This agent reads data and text parts only; files are not accepted.");
  }
  throw new AppError("empty_message", 400, 'The message has no content: send a data part {"skill": "<id>", "arguments": {…}} or a text part.');
}
