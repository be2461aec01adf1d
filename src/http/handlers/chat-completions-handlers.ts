import type { OpenedRun } from '../../runs/run-store.js';
import { waitForTerminal } from '../../runs/wait-for-terminal.js';
import type { AppDeps } from '../app-deps.js';
import { chatRequestToRunRequest } from '../chat-run-request.js';
import { runErrorOf } from '../formats/openai-chunks.js';
import { chatCompletionOf } from '../formats/openai-completion.js';
import { openaiFormat } from '../formats/openai-format.js';
import { DEFAULT_FORMAT_OPTIONS, formatOptionsOf } from '../formats/stream-format.js';
import { responseSignal } from '../response-signal.js';
import { CHAT_COMPLETION_ROUTES } from '../routes/chat-completions-routes.js';
import { serveRunStream, streamContextOf } from '../serve-run-stream.js';
import { type RouteHandlers, readBody, readQuery } from './route-handler.js';

/**
 * `POST /v1/chat/completions` (docs/protocol.md §4.2): an OpenAI chat completion request starts a run the
 * same way `POST /v1/runs` does (same validation, owner, queue, 429 and 503), and its id comes back
 * in the `x-run-id` header, so the run is also there under `/v1/runs`. `stream: true` answers the
 * run's `format=openai` stream from its first event; otherwise the answer waits for the run to end
 * and is one `chat.completion`. A run that fails answers its error body — in the stream as the last
 * frame before `[DONE]`; without streaming as status 502 (500 for `internal_error`), and 409 with
 * code `cancelled` for a cancelled run. A client that goes away does not stop the run.
 */
export function chatCompletionsHandlers(deps: AppDeps): RouteHandlers<typeof CHAT_COMPLETION_ROUTES> {
  const route = CHAT_COMPLETION_ROUTES['POST /v1/chat/completions'];
  return {
    'POST /v1/chat/completions': async (ctx) => {
      const query = readQuery(ctx, route.query);
      const body = await readBody(ctx, route.body, deps.config.maxBodyBytes, 'chat completion request');
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
    },
  };
}
