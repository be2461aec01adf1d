import { z } from 'zod';
import { ToolFailure } from '../environment.js';
import type { RunToolResult } from '../ors-schemas.js';
import type { AnyTool } from './environment-registry.js';
import type { ReadySession } from './session-store.js';
import type { ToolTaskOutcome } from './tool-task-store.js';
import { toWireToolOutput } from './wire-output.js';

/**
 * Runs tool `name` of `session` with `input` and says how it ended. The tool's *own* failures are
 * results (`{"ok": false, "error"}`): an unknown tool, an input its zod schema rejects, a thrown
 * {@link ToolFailure}. Anything else it throws — or a result that is not valid ORS output — is a
 * server-level failure, reported with its message (streamed as `event: error`) and passed to
 * `logError`. Never rejects. A tool without an input schema receives the call's input unvalidated.
 */
export async function executeToolCall(
  session: ReadySession,
  name: string,
  input: Record<string, unknown>,
  logError: (message: string, error: unknown) => void,
): Promise<ToolTaskOutcome> {
  const { definition } = session.environment;
  try {
    const tools: AnyTool[] = [...definition.tools, ...(definition.taskTools?.(session.state) ?? [])];
    const tool = tools.find((candidate) => candidate.name === name);
    if (tool === undefined) {
      return result({
        ok: false,
        error: `${JSON.stringify(name)} is not a valid tool; the tools of this session are: ${tools.map((t) => t.name).join(', ')}.`,
      });
    }
    let value: unknown = input;
    if (tool.input !== null) {
      const parsed = tool.input.safeParse(input);
      if (!parsed.success) {
        return result({
          ok: false,
          error: `Tool input validation error for ${JSON.stringify(name)}: ${z.prettifyError(parsed.error).replace(/\n/g, ' ')}`,
        });
      }
      value = parsed.data;
    }
    const output = await tool.run(value, { state: session.state, sessionId: session.id, signal: session.signal });
    return result({ ok: true, output: toWireToolOutput(output, `The result of tool ${JSON.stringify(name)}`) });
  } catch (error) {
    if (error instanceof ToolFailure) return result({ ok: false, error: error.message });
    // A tool stopped because its session ended did what it was asked; only real failures are news.
    if (!session.signal.aborted)
      logError(`tool "${name}" of session "${session.id}" (${definition.name}) threw`, error);
    return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
  }
}

function result(value: RunToolResult): ToolTaskOutcome {
  return { kind: 'result', json: JSON.stringify(value) };
}
