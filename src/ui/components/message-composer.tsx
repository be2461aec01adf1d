import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError, type ErrorNotice } from '../state/describe-error.js';
import { ErrorNoticeView } from './error-notice.js';

export interface MessageComposerProps {
  /** Sends the message into the run (`POST /v1/runs/:id/messages`); resolves once the bridge took it. */
  send: (text: string) => Promise<void>;
  /** Chat mode waits for this message: say so, and take the focus. */
  awaited: boolean;
  /** A request was refused for want of a valid key. */
  onAuthError: () => void;
}

/**
 * The message box under a running run: what the person types reaches the model before its next
 * turn (`message.received`), and in chat mode it is the answer the run waits for. Enter sends,
 * Shift+Enter is a new line.
 */
export function MessageComposer({ send, awaited, onAuthError }: MessageComposerProps) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [notice, setNotice] = useState<ErrorNotice>();
  const box = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    if (awaited) box.current?.focus();
  }, [awaited]);

  const submit = async (event?: Event) => {
    event?.preventDefault();
    if (text.trim() === '' || sending) return;
    setSending(true);
    setNotice(undefined);
    try {
      await send(text);
      setText('');
    } catch (error) {
      const described = describeError(error, 'send the message', location.origin);
      if (described.action === 'key') onAuthError();
      else setNotice(described);
    } finally {
      setSending(false);
    }
  };

  return (
    <form class={`composer${awaited ? ' composer-awaited' : ''}`} onSubmit={submit}>
      <label for="composer-text">{awaited ? 'Your turn: the model waits for your message' : 'Message the model'}</label>
      <div class="composer-row">
        <textarea
          id="composer-text"
          ref={box}
          rows={2}
          value={text}
          aria-describedby="composer-hint"
          placeholder={awaited ? 'Reply…' : 'Add something before its next turn…'}
          onInput={(event) => setText(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) void submit(event);
          }}
        />
        <button type="submit" class="button button-primary" disabled={sending || text.trim() === ''}>
          {sending ? 'Sending…' : 'Send'}
        </button>
      </div>
      <p id="composer-hint" class="hint">
        Enter sends, Shift+Enter starts a new line. The model reads it before its next turn.
      </p>
      {notice ? <ErrorNoticeView notice={notice} /> : null}
    </form>
  );
}
