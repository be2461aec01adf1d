import { z } from 'zod';
import { BadRequestError } from '../errors.js';
import { type DecisionRequest, DecisionRequestSchema } from '../protocol/decision-request.js';
import { type RunRequest, RunRequestSchema } from '../protocol/run-request.js';
import { A2aError, RPC_CODES } from './a2a-error.js';
import type { PartInput } from './a2a-schemas.js';
import { fieldIssues } from './field-issues.js';

/**
 * What a caller's message says (docs/a2a.md, "How a message reads"): its text parts, and at most one
 * data part holding a JSON object — a `POST /v1/runs` body for a new task, decisions for a task that
 * waits on them. File parts are refused (`-32005`): the agent takes text and JSON only.
 */
export interface ReadMessage {
  texts: string[];
  data: Record<string, unknown> | undefined;
}

/** The key of a run's `metadata` where a task started over A2A keeps its context and first message. */
export const A2A_METADATA_KEY = 'a2a';

/** What {@link A2A_METADATA_KEY} holds. */
export const A2aRunMetadataSchema = z.object({ context_id: z.string(), message_id: z.string() });

function invalidParams(message: string, path: string): A2aError {
  return new A2aError(RPC_CODES.invalidParams, message, {
    code: 'invalid_request',
    details: [{ path, message }],
    status: 200,
  });
}

/** The parts of a message read: `-32005` for a file part, `-32602` for a part of no kind or of several. */
export function readParts(parts: readonly PartInput[]): ReadMessage {
  const texts: string[] = [];
  let data: Record<string, unknown> | undefined;
  parts.forEach((part, index) => {
    const path = `message.parts.${index}`;
    const kinds = (['text', 'raw', 'url', 'data'] as const).filter((kind) => part[kind] !== undefined);
    if (part.unknownKind !== undefined || kinds.length !== 1) {
      throw invalidParams(
        part.unknownKind !== undefined
          ? `Part ${index} is of kind "${String(part.unknownKind)}", which A2A does not have: send text or data parts.`
          : `Part ${index} must hold exactly one of text, data, raw or url (it holds ${kinds.length === 0 ? 'none' : kinds.join(' and ')}).`,
        path,
      );
    }
    if (part.raw !== undefined || part.url !== undefined) {
      throw new A2aError(
        RPC_CODES.contentTypeNotSupported,
        `Part ${index} is a file: runbridge takes text parts (the input) and one data part (a run request, or decisions), not files.`,
        { code: 'unsupported_part', details: [{ path, message: 'file parts are not accepted' }], status: 200 },
      );
    }
    if (part.text !== undefined) texts.push(part.text);
    else if (data !== undefined) {
      throw invalidParams(
        'A message holds at most one data part: put the whole run request (or all decisions) in one.',
        path,
      );
    } else if (part.data === null || typeof part.data !== 'object' || Array.isArray(part.data)) {
      throw invalidParams(
        `The data part must hold a JSON object: a POST /v1/runs body, or {"decisions": [...]}.`,
        `${path}.data`,
      );
    } else data = part.data as Record<string, unknown>;
  });
  return { texts, data };
}

/**
 * The run request of a message that starts a task: its data part, validated as a `POST /v1/runs` body
 * (the same schema, the same field errors), with its text parts as `input`; text alone plays the
 * default environment in chat mode. The run's metadata keeps the task's context and first message.
 */
export function runRequestOf(read: ReadMessage, ids: { contextId: string; messageId: string }): RunRequest {
  const text = read.texts.join('\n');
  let body: Record<string, unknown>;
  if (read.data === undefined) body = { input: text, await_input: true };
  else if (read.texts.length === 0) body = read.data;
  else if (read.data.input !== undefined) {
    throw invalidParams(
      'The input is given twice: as text parts and as "input" in the data part. Send it one way.',
      'message.parts',
    );
  } else body = { ...read.data, input: text };
  const parsed = RunRequestSchema.safeParse(body);
  if (!parsed.success) {
    const { issues: details, summary } = fieldIssues(parsed.error, ['message.parts.data']);
    throw new BadRequestError(`Invalid run request in the data part: ${summary}.`, {
      code: 'invalid_request',
      details,
    });
  }
  const request = parsed.data;
  return {
    ...request,
    metadata: {
      ...request.metadata,
      [A2A_METADATA_KEY]: { context_id: ids.contextId, message_id: ids.messageId },
    },
  };
}

const A2aDecisionSchema = z.strictObject({
  tool_call_id: z.string().min(1).max(256),
  decision: z.enum(['approve', 'deny', 'edit']),
  arguments: z.record(z.string(), z.unknown()).optional(),
  reason: z.string().max(4000).optional(),
});

/** The data part of a message answering approvals. */
const DecisionsSchema = z.strictObject({ decisions: z.array(A2aDecisionSchema).min(1).max(256) });

/** One decision of a message, as the approvals API takes it: `edit` is an approve with new `arguments`. */
export interface ToolCallDecision {
  toolCallId: string;
  request: DecisionRequest;
}

/** The decisions of a data part (`{decisions: [...]}`), validated as the approvals API validates one. */
export function decisionsOf(data: Record<string, unknown>): ToolCallDecision[] {
  const parsed = DecisionsSchema.safeParse(data);
  if (!parsed.success) {
    const { issues, summary } = fieldIssues(parsed.error, ['message.parts.data'], 1);
    throw invalidParams(
      `A data part on a task holds {"decisions": [{"tool_call_id", "decision": "approve" | "deny" | "edit", "arguments"?, "reason"?}]}: ${summary}.`,
      issues[0]!.path,
    );
  }
  return parsed.data.decisions.map((decision) => {
    if (decision.decision === 'edit' && decision.arguments === undefined) {
      throw invalidParams('An "edit" decision carries the new "arguments".', 'message.parts.data.decisions');
    }
    const request = DecisionRequestSchema.safeParse({
      decision: decision.decision === 'deny' ? 'deny' : 'approve',
      ...(decision.arguments === undefined ? {} : { arguments: decision.arguments }),
      ...(decision.reason === undefined ? {} : { reason: decision.reason }),
    });
    if (!request.success) {
      throw invalidParams(
        `Decision for "${decision.tool_call_id}": ${request.error.issues[0]!.message}.`,
        'message.parts.data',
      );
    }
    return { toolCallId: decision.tool_call_id, request: request.data };
  });
}
