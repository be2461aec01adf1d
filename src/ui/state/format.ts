import type { TaskRef } from 'runbridge/client';

/** `12 ms`, `2.41 s`, `12.3 s`, `2 min 5 s`: a duration as a person reads it. */
export function formatSeconds(seconds: number): string {
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 10) return `${seconds.toFixed(2)} s`;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.floor(seconds % 60)} s`;
}

/** A running timer: one decimal, so it visibly moves. */
export function formatTimer(seconds: number): string {
  return seconds < 60 ? `${seconds.toFixed(1)} s` : formatSeconds(seconds);
}

/** `train #2`, `custom task`: which task a run plays. */
export function formatTask(task: TaskRef | null | undefined): string {
  if (!task) return 'default task';
  return 'split' in task ? `${task.split} #${task.index}` : 'custom task';
}

/** A reward as written in the page: `1`, `0.25`, or `no reward`. */
export function formatReward(reward: number | null): string {
  return reward === null ? 'no reward' : `${Number(reward.toFixed(4))}`;
}

/** `just now`, `5 min ago`, `3 h ago`, or the date: when something happened, from epoch seconds. */
export function formatAgo(epochSeconds: number, nowMs: number): string {
  const seconds = Math.max(0, nowMs / 1000 - epochSeconds);
  if (seconds < 45) return 'just now';
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return new Date(epochSeconds * 1000).toLocaleDateString();
}

/** `1,189`: a count with the reader's grouping. */
export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** `14:05`: a time of day (epoch seconds), in the reader's locale. */
export function formatClock(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}
