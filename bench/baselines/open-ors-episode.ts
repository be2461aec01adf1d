import { parseSseText } from '../../test/support/parse-sse-text.js';
import type { RawHttp } from './raw-http.js';

/** A tool of the task as ORS lists it. */
export interface OrsToolSpec {
  name: string;
  description: string;
  input_schema: unknown;
}

/** An open ORS episode: its prompt and tools, a way to call them, and the way out. */
export interface OrsEpisode {
  /** The prompt's text blocks, one per line. */
  prompt: string;
  tools: OrsToolSpec[];
  /** Calls a tool (`/{env}/call`) and reads its SSE answer whole: the output's text blocks, one per line, and whether it finished the episode. */
  call(name: string, input: unknown): Promise<{ text: string; finished: boolean }>;
  /** Deletes the task and the session. */
  close(): Promise<void>;
}

/**
 * The ORS side of a benchmark episode with nothing on top — no validation, pings, retries or
 * timeouts: opens a session, creates task `task` of `env`, and reads its prompt and tools. The
 * hand-written loop and the peers' tools all make their ORS exchanges through it, so they differ only
 * in their model loop. A failure after the session opened deletes it again.
 */
export async function openOrsEpisode(
  http: RawHttp,
  { orsUrl, env, task }: { orsUrl: string; env: string; task: { split: string; index: number } },
): Promise<OrsEpisode> {
  const sid =
    parseSseText(await http.post(`${orsUrl}/create_session`, undefined)).find((event) => event.event === 'task_id')
      ?.data ?? '';
  const headers = { 'x-session-id': sid };
  const close = async () => {
    await http.post(`${orsUrl}/delete`, undefined, headers);
    await http.post(`${orsUrl}/delete_session`, undefined, headers);
  };
  try {
    await http.post(`${orsUrl}/create`, { env_name: env, ...task }, headers);
    const [prompt, tools] = await Promise.all([
      http.getJson<Array<{ text?: string }>>(`${orsUrl}/${env}/prompt`, headers),
      http.getJson<{ tools: OrsToolSpec[] }>(`${orsUrl}/${env}/task_tools`, headers),
    ]);
    return {
      prompt: prompt.map((block) => block.text ?? '').join('\n'),
      tools: tools.tools,
      async call(name, input) {
        const events = parseSseText(await http.post(`${orsUrl}/${env}/call`, { name, input }, headers));
        const result = JSON.parse(
          events
            .filter((event) => event.event === 'chunk' || event.event === 'end')
            .map((event) => event.data)
            .join(''),
        ) as { output?: { blocks: Array<{ text?: string }>; finished: boolean } };
        return {
          text: result.output?.blocks.map((block) => block.text ?? '').join('\n') ?? '',
          finished: result.output?.finished ?? false,
        };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
