import type { AnyEnvironment } from '../../src/ors/server/environment-registry.js';
import { arithEnvironment } from './arith/arith-environment.js';
import { workspaceEnvironment } from './workspace/workspace-environment.js';

/**
 * The environments the built-in ORS server serves when no `ORS_URL` is configured, `arith` first
 * (the default environment). Each has its own task and state types; `any` is what lets them share one
 * list, since a definition is both produced and consumed in its `State` and so fits no common type.
 */
export const builtinEnvironments: AnyEnvironment[] = [arithEnvironment, workspaceEnvironment];
