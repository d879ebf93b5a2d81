/**
 * MCP tasks with the official SDK client (docs/mcp.md#tasks): a task-augmented `tools/call`, and
 * polling `tasks/get` until a task reaches a status.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema, type Task } from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from './wait.js';

/** Calls `name` as a task; answers the task the server created. */
export async function startTask(client: Client, name: string, args: Record<string, unknown>): Promise<Task> {
  const created = await client.request(
    { method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );
  return created.task;
}

/** Polls `tasks/get` until task `taskId` is `status`; answers it. */
export async function taskReaching(client: Client, taskId: string, status: Task['status']): Promise<Task> {
  let last: Task | undefined;
  await waitFor(
    async () => {
      last = await client.experimental.tasks.getTask(taskId);
      return last.status === status;
    },
    `task ${taskId} to be ${status} (last: ${JSON.stringify(last)})`,
    30_000,
    50,
  );
  return last as Task;
}
