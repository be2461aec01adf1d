import Router from 'koa-router';
import { SplitRequestSchema, TaskRangeRequestSchema, TaskRequestSchema } from '../ors-schemas.js';
import type { EnvironmentRegistry } from './environment-registry.js';
import { parseRequestBody } from './parse-request-body.js';
import { envParam } from './request-parts.js';
import { sliceTaskIndices } from './task-indices.js';
import { countTasks, taskAt } from './task-lookup.js';

/**
 * The sessionless endpoints: `/health`, `/list_environments`, and per environment `tools`, `splits`,
 * `tasks`, `num_tasks`, `task`, `task_range`, and our extension `task_schema` (docs/ors.md). As in the reference server, a body that does not fit is
 * a 422 before the environment is looked up (404), and a split the environment lacks is a 400.
 */
export function discoveryRoutes(registry: EnvironmentRegistry): Router {
  const router = new Router();

  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/list_environments', (ctx) => {
    ctx.body = registry.names();
  });

  router.get('/:env/tools', (ctx) => {
    ctx.body = { tools: registry.get(envParam(ctx.params)).sharedToolSpecs };
  });

  // Not in the ORS pages: what a `task_spec` holds, so a client can check one before `/create`.
  router.get('/:env/task_schema', (ctx) => {
    ctx.body = { task_schema: registry.get(envParam(ctx.params)).taskSchema };
  });

  router.get('/:env/splits', (ctx) => {
    ctx.body = registry.get(envParam(ctx.params)).definition.splits.map(({ name, type }) => ({ name, type }));
  });

  router.post('/:env/tasks', async (ctx) => {
    const { split } = await parseRequestBody(ctx.req, SplitRequestSchema);
    const env = envParam(ctx.params);
    const served = registry.get(env);
    const count = countTasks(served, split);
    ctx.body = {
      tasks: sliceTaskIndices(count, 0, count).map((index) => served.definition.tasks.get(split, index)),
      env_name: env,
    };
  });

  router.post('/:env/num_tasks', async (ctx) => {
    const { split } = await parseRequestBody(ctx.req, SplitRequestSchema);
    ctx.body = { num_tasks: countTasks(registry.get(envParam(ctx.params)), split) };
  });

  router.post('/:env/task', async (ctx) => {
    const { split, index } = await parseRequestBody(ctx.req, TaskRequestSchema);
    ctx.body = { task: taskAt(registry.get(envParam(ctx.params)), split, index) };
  });

  router.post('/:env/task_range', async (ctx) => {
    const { split, start, stop } = await parseRequestBody(ctx.req, TaskRangeRequestSchema);
    const served = registry.get(envParam(ctx.params));
    const indices = sliceTaskIndices(countTasks(served, split), start, stop);
    ctx.body = { tasks: indices.map((index) => served.definition.tasks.get(split, index)) };
  });

  return router;
}
