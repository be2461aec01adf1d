import Router from 'koa-router';
import { ChatCompletionRequestSchema } from '../../protocol/chat-completion-request.js';
import type { OpenedRun } from '../../runs/run-store.js';
import { waitForTerminal } from '../../runs/wait-for-terminal.js';
import type { AppDeps, AppState } from '../app-deps.js';
import { chatRequestToRunRequest } from '../chat-run-request.js';
import { runErrorOf } from '../formats/openai-chunks.js';
import { chatCompletionOf } from '../formats/openai-completion.js';
import { openaiFormat } from '../formats/openai-format.js';
import { DEFAULT_FORMAT_OPTIONS, formatOptionsOf } from '../formats/stream-format.js';
import { parseInput } from '../parse-input.js';
import { readJsonBody } from '../read-json-body.js';
import { responseSignal } from '../response-signal.js';
import { serveRunStream, streamContextOf } from '../serve-run-stream.js';
import { EventsQuerySchema } from './runs-routes.js';

/** `?agent_events=1` works here as on the events route: the typed events ride along in the stream. */
export const ChatQuerySchema = EventsQuerySchema.pick({ agent_events: true });

/**
 * `POST /v1/chat/completions` (docs/protocol.md §4.2): an OpenAI chat completion request starts a run the
 * same way `POST /v1/runs` does (same validation, owner, queue, 429 and 503), and its id comes back
 * in the `x-run-id` header, so the run is also there under `/v1/runs`. `stream: true` answers the
 * run's `format=openai` stream from its first event; otherwise the answer waits for the run to end
 * and is one `chat.completion`. A run that fails answers its error body — in the stream as the last
 * frame before `[DONE]`; without streaming as status 502 (500 for `internal_error`), and 409 with
 * code `cancelled` for a cancelled run. A client that goes away does not stop the run.
 */
export function chatCompletionsRoutes(deps: AppDeps): Router<AppState> {
  const router = new Router<AppState>();

  router.post('/v1/chat/completions', async (ctx) => {
    const query = parseInput(ChatQuerySchema, ctx.query, 'query');
    const body = parseInput(
      ChatCompletionRequestSchema,
      await readJsonBody(ctx.req, deps.config.maxBodyBytes),
      'chat completion request',
    );
    // A stream the caps refuse must not leave a run behind: its slot is taken before the run exists.
    const slot = body.stream ? deps.streams.acquire(ctx.state.owner) : undefined;
    let run: OpenedRun;
    try {
      const { record } = await deps.registry.create(chatRequestToRunRequest(body), ctx.state.owner);
      run = await deps.registry.open(record.id, ctx.state.owner);
    } catch (error) {
      slot?.();
      throw error;
    }
    ctx.set('x-run-id', run.record.id);

    if (slot) {
      await serveRunStream(ctx, deps, run, openaiFormat, formatOptionsOf(query), -1, slot);
      return;
    }

    const { signal, release } = responseSignal(ctx.res, deps.shutdownSignal);
    const terminal = await waitForTerminal(run, deps.registry, { signal, wakeMs: deps.config.keepaliveMs }).finally(
      release,
    );
    if (terminal === undefined) {
      // The client is gone (or the server is going): nobody is left to answer.
      ctx.respond = false;
      return;
    }
    if (terminal.event !== 'run.completed') throw runErrorOf(terminal);
    ctx.body = chatCompletionOf(streamContextOf(run, DEFAULT_FORMAT_OPTIONS), terminal);
  });

  return router;
}
