import { randomUUID } from "node:crypto";
import { Role, TaskState, type Message, type Part, type TaskStatus } from "@a2a-js/sdk";
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext, type ServerCallContext } from "@a2a-js/sdk/server";
import { TaskNotCancelableError } from "@a2a-js/sdk/errors";
import { acpError } from "../../acp/errors.ts";
import { AppError } from "../../http/errors.ts";
import { toAppError } from "../../http/respond.ts";
import type { CallContext } from "../../operations/define.ts";
import { callTool, type Tool } from "../../agents/tools.ts";
import { routeMessage } from "./route-message.ts";

/** Where the endpoint (lib/transports/a2a/endpoint.ts) puts the HTTP caller in the SDK's per-call state. */
export const CALLER_KEY = "ilm.caller";

function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

function dataPart(value: unknown): Part {
  return { content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" };
}

function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/** The HTTP request behind this call: its client address counts against the tools' rate limits, as over REST and MCP. */
function callerOf(context: ServerCallContext): CallContext {
  const caller = context.state.get(CALLER_KEY) as Omit<CallContext, "transport"> | undefined;
  // Outside the HTTP endpoint there is no client to count against: refuse rather than skip limits.
  if (!caller) throw new Error("A2A skill called outside an HTTP request");
  return { ...caller, transport: "a2a" };
}

/** The problem as data: the REST problem's code, detail and field errors (and ACP's Error for the ACP tools), as MCP gives it. */
function problemData(tool: Tool | undefined, problem: AppError): Record<string, unknown> {
  return {
    code: problem.code,
    detail: problem.detail,
    errors: problem.extra.errors ?? [],
    ...(tool?.operation.http?.errorFormat === "acp" ? { acp_error: acpError(problem, tool.operation) } : {}),
  };
}

/**
 * Runs one skill per message: the message picks a tool (route-message.ts), the tool runs through `callTool` (the
 * operation's limits, auth, idempotency and handler, as REST and MCP run it), and the task ends `completed` with the
 * result in an artifact (the structured result as a data part, and the tool's text), or `failed` with the problem as
 * data in its status message. Every call ends in one of those two states within the request, so nothing is left
 * waiting for input.
 */
export class ToolExecutor implements AgentExecutor {
  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = request;
    const status = (state: TaskState, message?: Message): TaskStatus => ({ state, message, timestamp: new Date().toISOString() });
    const update = (state: TaskState, message?: Message) =>
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(state, message), metadata: undefined }));

    if (!request.task) {
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: status(TaskState.TASK_STATE_SUBMITTED),
          artifacts: [],
          history: [request.userMessage],
          metadata: undefined,
        }),
      );
    }
    update(TaskState.TASK_STATE_WORKING);
    let tool: Tool | undefined;
    try {
      const caller = callerOf(request.context);
      const routed = routeMessage(request.userMessage.parts);
      tool = routed.tool;
      const result = await callTool(routed.tool, routed.args, caller);
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: randomUUID(),
            name: routed.tool.name,
            description: `Result of ${routed.tool.title}`,
            parts: [...(result.data ? [dataPart(result.data)] : []), textPart(result.text)],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      update(TaskState.TASK_STATE_COMPLETED, agentMessage(taskId, contextId, [textPart(result.text)]));
    } catch (error) {
      // A problem the caller can act on is told as it is; anything else is logged and hidden (toAppError).
      const problem =
        error instanceof AppError
          ? error
          : toAppError(error, (request.context.state.get(CALLER_KEY) as { requestId?: string } | undefined)?.requestId ?? taskId);
      update(
        TaskState.TASK_STATE_FAILED,
        agentMessage(taskId, contextId, [textPart(`${problem.code}: ${problem.detail}`), dataPart(problemData(tool, problem))]),
      );
    }
    bus.finished();
  }

  cancelTask(taskId: string): Promise<void> {
    return Promise.reject(new TaskNotCancelableError(`Task ${taskId} runs one tool call, which finishes within its request; it cannot be canceled.`));
  }
}
