/**
 * A minimal chat page on the Vercel AI SDK's own chat machinery (`AbstractChat` with a plain state,
 * as `@ai-sdk/react`'s `Chat` is one with React state, and `DefaultChatTransport`), pointed at
 * runbridge's `format=ai-sdk` stream. Bundled with esbuild by its test and served on the bridge's
 * origin. Two ways in, as docs/events.md describes them:
 *
 * - `/#run=ID&events=URL` watches an existing run: the chat's id is the run id and `resumeStream()`
 *   reads `URL&format=ai-sdk` (a stream-token URL, so the page needs no key);
 * - otherwise the form sends a message: the transport's `fetch` starts a run (`env` and `model` from
 *   the fragment, if there) with the message as its `input` (`POST /v1/runs`) and answers with that
 *   run's ai-sdk stream.
 */
import { AbstractChat, type ChatState, type ChatStatus, DefaultChatTransport, type UIMessage } from 'ai';

/** The chat's state, re-rendering the page on every change, as a UI framework's state would. */
class RenderedState implements ChatState<UIMessage> {
  #status: ChatStatus = 'ready';
  #error: Error | undefined;
  #messages: UIMessage[] = [];

  get status(): ChatStatus {
    return this.#status;
  }
  set status(value: ChatStatus) {
    this.#status = value;
    render(this);
  }
  get error(): Error | undefined {
    return this.#error;
  }
  set error(value: Error | undefined) {
    this.#error = value;
    render(this);
  }
  get messages(): UIMessage[] {
    return this.#messages;
  }
  set messages(value: UIMessage[]) {
    this.#messages = value;
    render(this);
  }
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.#messages, message];
  };
  popMessage = () => {
    this.messages = this.#messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.#messages.map((current, at) => (at === index ? structuredClone(message) : current));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

class PageChat extends AbstractChat<UIMessage> {
  constructor(
    id: string | undefined,
    transport: DefaultChatTransport<UIMessage>,
    readonly view: RenderedState,
  ) {
    super({ ...(id === undefined ? {} : { id }), transport, state: view });
  }
}

// In the fragment, which the browser never sends: the stream-token URL stays out of server logs.
const params = new URLSearchParams(location.hash.slice(1));
const watchedRun = params.get('run') ?? undefined;
const watchedEvents = params.get('events') ?? undefined;

const transport = new DefaultChatTransport<UIMessage>({
  api: '/v1/runs',
  // The body of POST /v1/runs: the message the user typed becomes the run's extra user turn.
  prepareSendMessagesRequest: ({ messages }) => ({
    body: {
      env: params.get('env') ?? 'arith',
      ...(params.has('model') ? { model: params.get('model') } : {}),
      input: textOf(messages.at(-1)),
    },
  }),
  // POST /v1/runs answers 202 with the run; the chat wants a stream, so read the run's one. (The
  // transport fetches with this for resumeStream() too: that GET is the stream already.)
  fetch: async (url, init) => {
    if (init?.method !== 'POST') return fetch(url, init);
    const created = await fetch(url, init);
    if (!created.ok) return created;
    const run = (await created.json()) as { events_url: string };
    return fetch(`${run.events_url}?format=ai-sdk`, { signal: init?.signal ?? null });
  },
  // resumeStream(): the chat's id is the run's; a watched run comes with its stream-token URL.
  prepareReconnectToStreamRequest: ({ id }) => ({
    api: watchedEvents ? `${watchedEvents}&format=ai-sdk` : `/v1/runs/${encodeURIComponent(id)}/events?format=ai-sdk`,
  }),
});

const view = new RenderedState();
const chat = new PageChat(watchedRun, transport, view);

/** What the test reads of the page: the chat's state, and what the page drew of the assistant's messages. */
const exposed = window as unknown as { chatState(): unknown; drawn(): unknown };
exposed.chatState = () => ({
  status: chat.status,
  error: chat.error?.message,
  messages: structuredClone(chat.messages),
});
exposed.drawn = () => {
  const all = (selector: string) => [...document.querySelectorAll(`li[data-role=assistant] ${selector}`)];
  return {
    text: all('.text').map((node) => node.textContent),
    reasoning: all('.reasoning p').map((node) => node.textContent),
    tools: all('.tool').map((node) => ({
      name: node.querySelector('h3')?.textContent,
      input: JSON.parse(node.querySelector('.input')?.textContent ?? 'null'),
      state: node.getAttribute('data-state'),
      output: node.querySelector('.output')?.textContent,
      elapsed: node.querySelector('.elapsed')?.textContent,
    })),
    run: document.querySelector('.run')?.textContent,
    status: document.querySelector('#status')?.textContent,
  };
};

document.querySelector('form')!.addEventListener('submit', (event) => {
  event.preventDefault();
  const input = document.querySelector<HTMLInputElement>('#text')!;
  void chat.sendMessage({ text: input.value });
  input.value = '';
});
if (watchedRun !== undefined) void chat.resumeStream();

function textOf(message: UIMessage | undefined): string {
  return (message?.parts ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}

function element(tag: string, attributes: Record<string, string> = {}, text?: string): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Draws every message, part by part: text, reasoning, each tool call as a card, the run's outcome. */
function render(state: RenderedState): void {
  document.querySelector('#status')!.textContent = state.error ? `error: ${state.error.message}` : state.status;
  const list = document.querySelector('#messages')!;
  list.replaceChildren(
    ...state.messages.map((message) => {
      const item = element('li', { 'data-role': message.role, 'data-id': message.id });
      const tools = new Map<string, Record<string, unknown>>();
      for (const part of message.parts)
        if (part.type === 'data-runbridge-tool') tools.set(String(part.id), part.data as Record<string, unknown>);
      for (const part of message.parts) {
        if (part.type === 'text') item.append(element('p', { class: 'text' }, part.text));
        else if (part.type === 'reasoning') {
          const details = element('details', { class: 'reasoning' });
          details.append(element('summary', {}, 'Reasoning'), element('p', {}, part.text));
          item.append(details);
        } else if (part.type === 'dynamic-tool') {
          const card = element('section', {
            class: 'tool',
            'data-tool-call-id': part.toolCallId,
            'data-state': part.state,
          });
          card.append(element('h3', {}, part.toolName), element('pre', { class: 'input' }, JSON.stringify(part.input)));
          const facts = tools.get(part.toolCallId);
          if (facts?.status === 'running') card.append(element('p', { class: 'elapsed' }, `${facts.elapsed}s`));
          if (part.state === 'output-available') card.append(element('pre', { class: 'output' }, String(part.output)));
          if (part.state === 'output-error') card.append(element('p', { class: 'error' }, part.errorText));
          item.append(card);
        } else if (part.type === 'data-runbridge-run') {
          const run = part.data as { status: string; reward?: number | null };
          const reward = run.reward === undefined || run.reward === null ? '' : ` · reward ${run.reward}`;
          item.append(element('p', { class: 'run', 'data-status': run.status }, `${run.status}${reward}`));
        }
      }
      return item;
    }),
  );
}
