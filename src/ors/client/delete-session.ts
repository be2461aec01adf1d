import { AbortScope } from './abort-scope.js';
import { type OrsTransport, orsFetchText } from './ors-request.js';

/**
 * Frees session `sid` on the server: `/delete` (tears the environment down), then `/delete_session`.
 * Each is bounded by the transport's request timeout, retries included, and by nothing else, so a
 * cancelled run still frees its session. Never throws: a session that is already gone (404/410) is
 * the goal, and for an unreachable server there is nobody left to tell (it reaps idle sessions after
 * 15 minutes).
 */
export async function deleteSession(transport: OrsTransport, sid: string): Promise<void> {
  for (const path of ['/delete', '/delete_session']) {
    const deadline = new AbortScope([], transport.requestTimeoutMs);
    try {
      await orsFetchText(transport, {
        method: 'POST',
        path,
        kind: 'session',
        sid,
        idempotent: true,
        signals: [deadline.signal],
      });
    } catch {
      // See the doc comment: a failed delete has no one to report to.
    } finally {
      deadline.dispose();
    }
  }
}
