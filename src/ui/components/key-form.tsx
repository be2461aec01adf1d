import { useEffect, useRef, useState } from 'preact/hooks';
import { AuthenticationError, createClient } from 'runbridge/client';
import { describeError, type ErrorNotice } from '../state/describe-error.js';
import { ErrorNoticeView } from './error-notice.js';

/**
 * Asks for the API key when the bridge wants one (it answered 401): checks it with one request
 * (`GET /v1/models`) before keeping it, so a mistyped key is caught here and not in the middle of a run.
 */
export function KeyForm({ onKey, rejected }: { onKey: (key: string) => void; rejected: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  const [key, setKey] = useState('');
  const [checking, setChecking] = useState(false);
  const [notice, setNotice] = useState<ErrorNotice>();

  useEffect(() => input.current?.focus(), []);

  const submit = async (event: Event) => {
    event.preventDefault();
    const candidate = key.trim();
    if (candidate === '') {
      setNotice({
        title: 'No key',
        message: 'Enter an API key.',
        action: undefined,
        retryAfterSeconds: undefined,
        code: undefined,
      });
      input.current?.focus();
      return;
    }
    setChecking(true);
    setNotice(undefined);
    try {
      await createClient({ baseUrl: location.origin, apiKey: candidate }).models.list();
      onKey(candidate);
    } catch (error) {
      setChecking(false);
      setNotice(
        error instanceof AuthenticationError
          ? { ...describeError(error, 'check the key', location.origin), title: 'Key not accepted' }
          : describeError(error, 'check the key', location.origin),
      );
      input.current?.select();
    }
  };

  return (
    <section class="key" aria-labelledby="key-title">
      <h1 id="key-title">API key needed</h1>
      <p class="lede">
        {rejected
          ? 'The bridge no longer accepts the key this tab had. Enter a valid one to go on.'
          : 'This bridge is protected with API keys. Enter one to start and follow runs; it is kept in this tab until you close it.'}
      </p>
      <form class="key-form" onSubmit={submit}>
        <div class="field">
          <label for="api-key">API key</label>
          <input
            id="api-key"
            ref={input}
            type="password"
            autoComplete="off"
            spellcheck={false}
            value={key}
            onInput={(event) => setKey(event.currentTarget.value)}
          />
        </div>
        {notice ? <ErrorNoticeView notice={notice} /> : null}
        <div class="form-actions">
          <button type="submit" class="button button-primary" disabled={checking}>
            {checking ? 'Checking…' : 'Continue'}
          </button>
        </div>
      </form>
    </section>
  );
}
