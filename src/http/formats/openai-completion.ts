import type {
  ChatCompletion,
  ChatEpisode,
  ChatFinishReason,
  ChatToolCall,
  ChatToolResult,
  ChatUsage,
} from '../../protocol/chat-completion.js';
import type { RunEventOf } from '../../protocol/run-events.js';
import { chunksOf, completionHead } from './openai-chunks.js';
import type { StreamContext } from './stream-format.js';

/**
 * The `chat.completion` of a completed run: exactly what its `format=openai` chunks add up to (it is
 * built by adding them up), so a non-streaming and a streaming request for the same run agree —
 * content (all turns' text, null when there was none), reasoning, every tool call (a streamed one's
 * pieces joined), finish reason and usage — plus, in the `runbridge` field, each tool call's result
 * and the episode's reward.
 */
export function chatCompletionOf(context: StreamContext, completed: RunEventOf<'run.completed'>): ChatCompletion {
  let content = '';
  let reasoning = '';
  const toolCalls: ChatToolCall[] = [];
  const toolResults: ChatToolResult[] = [];
  let finishReason: ChatFinishReason = 'stop';
  let usage: ChatUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  for (const { event } of context.log) {
    if (event.event === 'tool.completed') toolResults.push(toolResultOf(event));
    for (const chunk of chunksOf(event, context)) {
      if (chunk.usage) usage = chunk.usage;
      for (const { delta, finish_reason } of chunk.choices) {
        content += delta.content ?? '';
        reasoning += delta.reasoning_content ?? '';
        for (const { index, id, function: fn } of delta.tool_calls ?? []) {
          // A streamed call's first chunk names it; the later ones add to its arguments.
          const call = toolCalls[index];
          if (call) call.function.arguments += fn.arguments;
          else
            toolCalls[index] = {
              id: id ?? '',
              type: 'function',
              function: { name: fn.name ?? '', arguments: fn.arguments },
            };
        }
        if (finish_reason !== null) finishReason = finish_reason;
      }
    }
  }
  return {
    ...completionHead(context, 'chat.completion'),
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: content === '' ? null : content,
          refusal: null,
          ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
          ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
        },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage,
    runbridge: {
      run_id: context.runId,
      reward: completed.reward,
      finished: completed.finished,
      stop_reason: completed.stop_reason,
      turns: completed.turns,
      tool_results: toolResults,
    } satisfies ChatEpisode,
  };
}

function toolResultOf(event: RunEventOf<'tool.completed'>): ChatToolResult {
  return {
    tool_call_id: event.tool_call_id,
    tool: event.tool,
    output: event.output,
    ...(event.truncated === undefined ? {} : { truncated: event.truncated }),
    error: event.error,
    ...(event.error_message === undefined ? {} : { error_message: event.error_message }),
    reward: event.reward,
    finished: event.finished,
    duration: event.duration,
  };
}
