import type { ListTasksRequest, ListTasksResponse, Task } from "@a2a-js/sdk";
import type { ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import { UnsupportedOperationError } from "@a2a-js/sdk/errors";

/** How many tasks one process keeps, and for how long: enough to read a result back, never a growing heap. */
const MAX_TASKS = 2_000;
const TASK_TTL_MS = 60 * 60 * 1000;

/**
 * The A2A tasks of this process, in memory and bounded (the SDK's InMemoryTaskStore keeps every task forever). A task
 * is one tool call that ends within its request, so a task only needs to outlive it for `GetTask` / `tasks/get`; the
 * oldest go first past MAX_TASKS, and each expires after TASK_TTL_MS. Callers are anonymous, so a task is reached
 * only by its id, a random UUID the caller was given: listing tasks would show everyone's results (a checkout's
 * buyer, a license key) to anyone and is refused.
 */
export class BoundedTaskStore implements TaskStore {
  private readonly tasks = new Map<string, { task: Task; expires: number }>();

  constructor(
    private readonly max = MAX_TASKS,
    private readonly ttlMs = TASK_TTL_MS,
  ) {}

  private key(taskId: string, context: ServerCallContext): string {
    return `${context.tenant ?? ""}\u0000${taskId}`;
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const key = this.key(taskId, context);
    const entry = this.tasks.get(key);
    if (entry && entry.expires <= Date.now()) this.tasks.delete(key);
    return Promise.resolve(entry && entry.expires > Date.now() ? structuredClone(entry.task) : undefined);
  }

  save(task: Task, context: ServerCallContext): Promise<void> {
    const key = this.key(task.id, context);
    // Re-inserting moves the task to the end of the Map's order, so eviction drops the least recently written.
    this.tasks.delete(key);
    this.tasks.set(key, { task: structuredClone(task), expires: Date.now() + this.ttlMs });
    for (const oldest of this.tasks.keys()) {
      if (this.tasks.size <= this.max) break;
      this.tasks.delete(oldest);
    }
    return Promise.resolve();
  }

  list(_params: ListTasksRequest, _context: ServerCallContext): Promise<ListTasksResponse> {
    return Promise.reject(new UnsupportedOperationError("Listing tasks is not offered: callers are anonymous. Read a task by its id (GetTask)."));
  }
}
