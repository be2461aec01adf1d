/** The exit code of a process stopped by `signal`, as shells report it (128 + the signal's number). */
export function exitCodeForSignal(signal: NodeJS.Signals): number {
  return signal === 'SIGTERM' ? 143 : 130;
}

/**
 * How every long-running command stops: the first SIGINT or SIGTERM calls `listener` (which stops
 * gracefully), and from then on a second one of either exits at once — the way out when a graceful
 * stop takes too long. Answers a function that stops listening, for a command that ends by itself.
 */
export function onStopSignal(listener: (signal: NodeJS.Signals) => void): () => void {
  const stopListening = () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  };
  const stop = (signal: NodeJS.Signals) => {
    stopListening();
    process.once('SIGINT', () => process.exit(exitCodeForSignal('SIGINT')));
    process.once('SIGTERM', () => process.exit(exitCodeForSignal('SIGTERM')));
    listener(signal);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return stopListening;
}

/** Resolves at the first SIGINT or SIGTERM (see {@link onStopSignal}). */
export function nextStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => onStopSignal(resolve));
}
