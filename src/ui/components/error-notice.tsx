import type { ComponentChildren } from 'preact';
import type { ErrorNotice } from '../state/describe-error.js';

/** An error as an alert: its title and message, and the buttons that act on it. */
export function ErrorNoticeView({ notice, children }: { notice: ErrorNotice; children?: ComponentChildren }) {
  return (
    <div class="notice notice-error" role="alert">
      <p class="notice-title">{notice.title}</p>
      <p class="notice-message">{notice.message}</p>
      {children ? <div class="notice-actions">{children}</div> : null}
    </div>
  );
}
