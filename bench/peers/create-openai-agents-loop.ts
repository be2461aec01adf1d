import {
  Agent,
  OpenAIProvider,
  run,
  setDefaultModelProvider,
  setTracingDisabled,
  type Tool,
  type ToolInputParameters,
  tool,
} from '@openai/agents';
import type { PeerLoop, PeerLoopOptions } from './peer-loop.js';

/**
 * The OpenAI Agents SDK peer: an `Agent` with the task's tools as function tools, played by `run` with
 * `stream: true` over the Chat Completions API (an `OpenAIProvider` whose client points at the fake
 * model, `useResponses: false`), tracing off. It stops by `toolUseBehavior` once a tool said finished
 * (or at `maxTurns`, the run's own limit), and its stream of events is read to the end.
 */
export function createOpenAiAgentsLoop({ modelBaseUrl, maxTurns }: PeerLoopOptions): PeerLoop {
  setTracingDisabled(true);
  setDefaultModelProvider(new OpenAIProvider({ apiKey: 'bench', baseURL: modelBaseUrl, useResponses: false }));
  return {
    async play(episode, model) {
      let finished = false;
      let answer = '';
      const tools: Tool[] = episode.tools.map((spec) =>
        tool({
          name: spec.name,
          description: spec.description,
          // ORS gives a plain JSON schema; without `strict` the SDK passes it on as is.
          parameters: spec.input_schema as Extract<ToolInputParameters, { additionalProperties: true }>,
          strict: false,
          // A failed ORS call fails the run, as in the other loops, rather than going back to the model as text.
          errorFunction: null,
          execute: async (input: unknown) => {
            const result = await episode.call(spec.name, input);
            finished ||= result.finished;
            answer = result.text;
            return result.text;
          },
        }),
      );
      const agent = new Agent({
        name: 'bench',
        model,
        tools,
        toolUseBehavior: () =>
          finished
            ? { isFinalOutput: true, isInterrupted: undefined, finalOutput: answer }
            : { isFinalOutput: false, isInterrupted: undefined },
      });
      const result = await run(agent, episode.prompt, { stream: true, maxTurns });
      for await (const _event of result) {
        // Every event is read, as an application showing the run would; none is needed here.
      }
      await result.completed;
      if (result.error) throw result.error;
      return { turns: result.rawResponses.length, finished };
    },
  };
}
