import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { type JSONSchema7, jsonSchema, stepCountIs, streamText, type ToolSet, tool } from 'ai';
import type { PeerLoop, PeerLoopOptions } from './peer-loop.js';

/**
 * The Vercel AI SDK peer: `streamText` with the task's tools over `@ai-sdk/openai-compatible`, stopped
 * by `stopWhen` (a tool said finished, or `maxTurns` steps), its `fullStream` read to the end as an
 * application showing each step would. Telemetry is off, the SDK's default.
 */
export function createAiSdkLoop({ modelBaseUrl, maxTurns }: PeerLoopOptions): PeerLoop {
  const provider = createOpenAICompatible({
    name: 'bench',
    baseURL: modelBaseUrl,
    apiKey: 'bench',
    includeUsage: true,
  });
  return {
    async play(episode, model) {
      let finished = false;
      const tools: ToolSet = Object.fromEntries(
        episode.tools.map((spec) => [
          spec.name,
          tool({
            description: spec.description,
            inputSchema: jsonSchema(spec.input_schema as JSONSchema7),
            execute: async (input: unknown) => {
              const result = await episode.call(spec.name, input);
              finished ||= result.finished;
              return result.text;
            },
          }),
        ]),
      );
      const result = streamText({
        model: provider.chatModel(model),
        prompt: episode.prompt,
        tools,
        stopWhen: [stepCountIs(maxTurns), () => finished],
      });
      for await (const part of result.fullStream) {
        // The SDK hands a failed tool call back to the model; a failed ORS call fails the episode here, as in the other loops.
        if (part.type === 'error' || part.type === 'tool-error') throw part.error;
      }
      return { turns: (await result.steps).length, finished };
    },
  };
}
