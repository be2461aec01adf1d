import type { TestProject } from 'vitest/node';
import { startTestRedis } from './redis-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The URL of the Redis the `redis` project's bridges share (each under its own key prefix). */
    testRedisUrl: string;
  }
}

/**
 * Global set-up of the `redis` test project (vitest.config.ts): one `redis-server` for the whole
 * run, stopped at its end. `startTestBridge` puts every bridge of that project on it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await startTestRedis();
  project.provide('testRedisUrl', redis.url);
  return () => redis.stop();
}
