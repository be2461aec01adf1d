import type { ChatCompletionRequest, ChatMessage } from '../protocol/chat-completion-request.js';
import {
  type InputMessage,
  type RunRequest,
  type RunRequestInput,
  RunRequestSchema,
  type Sampling,
} from '../protocol/run-request.js';

/**
 * The run a chat completion request asks for: `system` and `developer` messages become the run's
 * `instructions` (joined by blank lines, in order), `user` and `assistant` messages its extra turns
 * after the environment's prompt. An assistant message keeps only its text (its tool calls belonged
 * to an earlier episode); one without text is dropped. `max_completion_tokens` wins over
 * `max_tokens`; fields the bridge ignores are not carried over.
 */
export function chatRequestToRunRequest(request: ChatCompletionRequest): RunRequest {
  const instructions = request.messages.flatMap((message) =>
    message.role === 'system' || message.role === 'developer' ? [instructionText(message)] : [],
  );
  const input = request.messages.flatMap(toInputMessage);
  const sampling: Sampling = {};
  if (request.temperature != null) sampling.temperature = request.temperature;
  if (request.top_p != null) sampling.top_p = request.top_p;
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) sampling.max_tokens = maxTokens;
  if (request.seed != null) sampling.seed = request.seed;

  const run: RunRequestInput = {};
  if (request.env !== undefined) run.env = request.env;
  if (request.task !== undefined) run.task = request.task;
  if (request.model != null) run.model = request.model;
  if (request.max_turns !== undefined) run.max_turns = request.max_turns;
  if (instructions.length > 0) run.instructions = instructions.join('\n\n');
  if (input.length > 0) run.input = input;
  if (Object.keys(sampling).length > 0) run.sampling = sampling;
  if (request.metadata != null) run.metadata = request.metadata;
  // Through the run request's schema, so the run gets the same defaults a `POST /v1/runs` would.
  return RunRequestSchema.parse(run);
}

function instructionText(message: Extract<ChatMessage, { role: 'system' | 'developer' }>): string {
  return typeof message.content === 'string' ? message.content : message.content.map((part) => part.text).join('');
}

function toInputMessage(message: ChatMessage): InputMessage[] {
  const name = message.name == null ? {} : { name: message.name };
  switch (message.role) {
    case 'system':
    case 'developer':
      return [];
    case 'user':
      return [{ role: 'user', content: message.content, ...name }];
    case 'assistant': {
      const content = message.content;
      if (content == null || content === '') return [];
      return [{ role: 'assistant', content, ...name }];
    }
  }
}
