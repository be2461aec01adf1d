import { useEffect, useRef, useState } from 'preact/hooks';
import type { RunbridgeClient, RunRequest } from 'runbridge/client';
import type { Catalog } from '../hooks/use-catalog.js';
import { describeError, type ErrorNotice } from '../state/describe-error.js';
import { formatCount } from '../state/format.js';
import { messageFields } from '../state/ui-metadata.js';
import { ErrorNoticeView } from './error-notice.js';

export interface StartRunFormProps {
  client: RunbridgeClient;
  catalog: Catalog;
  reloadCatalog: () => void;
  /** The run was created: show it. */
  onStarted: (runId: string) => void;
  /** A request was refused for want of a valid key. */
  onAuthError: () => void;
  /** Move the focus to the heading once shown (after the person asked for a new run). */
  focus: boolean;
}

/**
 * Starts a run: an environment and a task from `GET /v1/environments`, a model from `GET /v1/models`
 * (or the bridge's default), and an optional message, sent as `input` — a user turn after the
 * environment's prompt; chat mode (on by default: an answer without a tool call waits for the
 * person's next message) and whether every tool call waits for the person's approval. `POST
 * /v1/runs` answers at once; the run is then followed on its own page.
 */
export function StartRunForm({ client, catalog, reloadCatalog, onStarted, onAuthError, focus }: StartRunFormProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  const [env, setEnv] = useState('');
  const [split, setSplit] = useState('');
  const [index, setIndex] = useState('0');
  const [model, setModel] = useState('');
  const [message, setMessage] = useState('');
  // Chat mode by default: the person keeps talking after the model answers (docs/ui.md).
  const [chat, setChat] = useState(true);
  const [askFirst, setAskFirst] = useState(false);
  const [sending, setSending] = useState(false);
  const [notice, setNotice] = useState<ErrorNotice>();

  useEffect(() => {
    if (focus) heading.current?.focus();
  }, [focus]);
  // Once the environments are known, preselect the bridge's default one and its first split.
  const environments = catalog.state === 'ready' ? catalog.environments : undefined;
  useEffect(() => {
    if (environments === undefined || env !== '') return;
    const initial = environments.data.find((entry) => entry.id === environments.default) ?? environments.data[0];
    if (initial) {
      setEnv(initial.id);
      setSplit(initial.splits[0]?.name ?? '');
    }
  }, [environments, env]);

  const chosen = environments?.data.find((entry) => entry.id === env);
  const chosenSplit = chosen?.splits.find((entry) => entry.name === split);

  const submit = async (event: Event) => {
    event.preventDefault();
    // Enter in the message box submits even while the button is disabled: start one run, and only once ready.
    if (sending || catalog.state !== 'ready') return;
    setSending(true);
    setNotice(undefined);
    const request: RunRequest = {
      ...(env === '' ? {} : { env }),
      ...(split === '' ? {} : { task: { split, index: Number(index) } }),
      ...(model === '' ? {} : { model }),
      ...messageFields(message),
      ...(chat ? { await_input: true } : {}),
      ...(askFirst ? { approval: { tools: '*' as const } } : {}),
    };
    try {
      const created = await client.runs.create(request);
      onStarted(created.run_id);
    } catch (error) {
      const described = describeError(error, 'start the run', location.origin);
      setSending(false);
      if (described.action === 'key') onAuthError();
      else setNotice(described);
    }
  };

  return (
    <section class="start" aria-labelledby="start-title">
      <h1 id="start-title" ref={heading} tabIndex={-1}>
        Start a run
      </h1>
      <p class="lede">
        The model plays one episode of an environment with its tools. Text, reasoning, tool calls and rewards stream in
        as they happen.
      </p>
      {catalog.state === 'failed' ? (
        <ErrorNoticeView notice={describeError(catalog.error, 'list the environments and models', location.origin)}>
          <button type="button" class="button" onClick={reloadCatalog}>
            Try again
          </button>
        </ErrorNoticeView>
      ) : null}
      <form class="start-form" onSubmit={submit} aria-busy={catalog.state === 'loading'}>
        <div class="field">
          <label for="env">Environment</label>
          <select
            id="env"
            value={env}
            disabled={environments === undefined}
            onChange={(event) => {
              const id = event.currentTarget.value;
              setEnv(id);
              setSplit(environments?.data.find((entry) => entry.id === id)?.splits[0]?.name ?? '');
              setIndex('0');
            }}
          >
            {environments === undefined ? <option value="">Loading…</option> : null}
            {environments?.data.map((entry) => (
              <option key={entry.id} value={entry.id}>
                {entry.id}
              </option>
            ))}
          </select>
        </div>
        <fieldset class="field-group">
          <legend>Task</legend>
          <div class="field">
            <label for="split">Split</label>
            <select
              id="split"
              value={split}
              disabled={!chosen}
              onChange={(event) => setSplit(event.currentTarget.value)}
            >
              {chosen?.splits.map((entry) => (
                <option key={entry.name} value={entry.name}>
                  {entry.name} ({formatCount(entry.tasks)} tasks)
                </option>
              ))}
            </select>
          </div>
          <div class="field field-narrow">
            <label for="index">Index</label>
            <input
              id="index"
              type="number"
              inputMode="numeric"
              min={0}
              max={chosenSplit ? Math.max(0, chosenSplit.tasks - 1) : undefined}
              step={1}
              required
              value={index}
              aria-describedby="index-hint"
              onInput={(event) => setIndex(event.currentTarget.value)}
            />
          </div>
          <p id="index-hint" class="hint">
            {chosenSplit === undefined
              ? ' '
              : chosenSplit.tasks === 0
                ? `${chosenSplit.name} has no tasks`
                : `0 to ${formatCount(chosenSplit.tasks - 1)} in ${chosenSplit.name}`}
          </p>
        </fieldset>
        <div class="field">
          <label for="model">Model</label>
          <select id="model" value={model} onChange={(event) => setModel(event.currentTarget.value)}>
            <option value="">
              {catalog.state === 'ready' ? `The bridge's default (${catalog.defaultModel})` : "The bridge's default"}
            </option>
            {catalog.state === 'ready'
              ? catalog.models.map((entry) => (
                  <option key={entry.id} value={entry.id}>
                    {entry.id}
                  </option>
                ))
              : null}
          </select>
        </div>
        <div class="field">
          <label for="message">
            Message <span class="optional">optional</span>
          </label>
          <textarea
            id="message"
            rows={3}
            value={message}
            aria-describedby="message-hint"
            placeholder="Anything to add to the task…"
            onInput={(event) => setMessage(event.currentTarget.value)}
            onKeyDown={(event) => {
              // As in the message box under a run: Enter (or Ctrl+Enter) starts, Shift+Enter is a new line.
              if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
                event.preventDefault();
                event.currentTarget.form?.requestSubmit();
              }
            }}
          />
          <p id="message-hint" class="hint">
            Sent as a user turn after the environment's prompt. Enter starts the run, Shift+Enter starts a new line.
          </p>
        </div>
        <fieldset class="field-group field-options">
          <legend>A person in the loop</legend>
          <label class="check">
            <input type="checkbox" checked={chat} onChange={(event) => setChat(event.currentTarget.checked)} />
            <span>
              Chat mode{' '}
              <span class="hint-inline">— when the model answers without a tool call, it waits for your reply</span>
            </span>
          </label>
          <label class="check">
            <input type="checkbox" checked={askFirst} onChange={(event) => setAskFirst(event.currentTarget.checked)} />
            <span>
              Ask me before each tool call <span class="hint-inline">— approve, edit or deny every call</span>
            </span>
          </label>
        </fieldset>
        {notice ? <ErrorNoticeView notice={notice} /> : null}
        <div class="form-actions">
          <button type="submit" class="button button-primary" disabled={sending || catalog.state !== 'ready'}>
            {sending ? 'Starting…' : 'Start run'}
          </button>
        </div>
      </form>
    </section>
  );
}
