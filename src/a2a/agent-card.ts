import { PACKAGE_VERSION } from '../package-version.js';
import type { A2aVersion } from './a2a-version.js';

/** Where the A2A endpoint is mounted under the bridge's base URL. */
export const A2A_PATH = '/v1/a2a';

/** Where agents look for the card (A2A v0.3 and v1.0). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** What the ORS server says of one environment: the card's skill for it is made of this. */
export interface EnvironmentSkillSource {
  id: string;
  splits: ReadonlyArray<{ name: string; type: string; tasks: number }>;
  tools: ReadonlyArray<{ name: string; description: string }>;
}

/** What the card says of this bridge beside its environments. */
export interface CardSettings {
  /** The bridge's base URL as callers reach it (`RUNBRIDGE_PUBLIC_URL`, else the request's own origin). */
  baseUrl: string;
  /** API keys are configured: calls need `Authorization: Bearer <key>`. */
  keysRequired: boolean;
  /** Push notifications can be signed (`RUNBRIDGE_WEBHOOK_SECRET` is set). */
  pushNotifications: boolean;
  /** The environment a text-only message plays. */
  defaultEnv: string | undefined;
  /** For the extended card: the models a run may name, and the default one. */
  models?: { ids: readonly string[]; default: string };
}

/** Input and output modes: text, and JSON data parts (a run request in, tool progress and results out). */
const MODES = ['text/plain', 'application/json'];

/** A skill of the card (v1.0 `AgentSkill`; v0.3 has the same fields). */
interface Skill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples: string[];
  inputModes: string[];
  outputModes: string[];
}

const MAX_DESCRIBED_TOOLS = 20;

/** The skill of one environment: its id is the environment's name, its description made of what ORS lists. */
function skillOf(env: EnvironmentSkillSource, detailed: boolean): Skill {
  const tools = env.tools.slice(0, MAX_DESCRIBED_TOOLS).map((tool) => `${tool.name} (${oneLine(tool.description)})`);
  const more = env.tools.length > MAX_DESCRIBED_TOOLS ? `, and ${env.tools.length - MAX_DESCRIBED_TOOLS} more` : '';
  const splits = env.splits.map((split) => `${split.name}: ${split.tasks} ${split.type} tasks`).join(', ');
  const firstSplit = env.splits[0]?.name;
  return {
    id: env.id,
    name: env.id,
    description:
      `Plays an episode of the ORS environment "${env.id}": a model works the task with its tools` +
      `${tools.length > 0 ? ` — ${tools.join('; ')}${more}` : ''}.` +
      `${splits === '' ? '' : ` Tasks: ${splits}.`} Send a data part {"env": "${env.id}", "task": {...}} to choose one.`,
    tags: ['ors', 'environment', ...new Set(env.splits.map((split) => split.type))],
    examples: [
      JSON.stringify({ env: env.id }),
      ...(detailed && firstSplit !== undefined
        ? [JSON.stringify({ env: env.id, task: { split: firstSplit, index: 0 }, approval: { tools: '*' } })]
        : []),
    ],
    inputModes: MODES,
    outputModes: MODES,
  };
}

/** The skill a card lists while the ORS server does not say what it serves (a card lists at least one). */
function fallbackSkill(defaultEnv: string | undefined): Skill {
  return {
    id: defaultEnv ?? 'run',
    name: defaultEnv ?? 'run',
    description:
      'Plays an episode of an ORS environment. The ORS server does not answer now, so its environments are not listed; ask again later.',
    tags: ['ors', 'environment'],
    examples: [],
    inputModes: MODES,
    outputModes: MODES,
  };
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}

function description(settings: CardSettings): string {
  const chat = settings.defaultEnv === undefined ? '' : ` (${settings.defaultEnv})`;
  const models =
    settings.models === undefined
      ? ''
      : ` Models a run may name: ${settings.models.ids.join(', ')}; the default is ${settings.models.default}.`;
  return (
    'runbridge drives a model through episodes of ORS environments. A task is a run: a text message ' +
    `runs the default environment${chat} in chat mode; a data part holding a POST /v1/runs body chooses ` +
    'the environment, task, model and approvals. The answer streams as the artifact "answer", tool calls ' +
    'as status messages with data parts; a run waiting on a person is input-required.' +
    models
  );
}

/**
 * The agent card (A2A v1.0 `AgentCard`, ProtoJSON) of a bridge serving `envs`: one JSON-RPC interface
 * per version at the one endpoint, streaming and (with a webhook secret) push notifications, one skill
 * per environment, and bearer auth when keys are set. `extended` is the card `GetExtendedAgentCard`
 * answers an authenticated caller: examples with tasks and approvals, and the models.
 */
export function agentCard(
  envs: readonly EnvironmentSkillSource[] | undefined,
  settings: CardSettings,
  extended = false,
) {
  const url = `${settings.baseUrl}${A2A_PATH}`;
  return {
    name: 'runbridge',
    description: description(settings),
    version: PACKAGE_VERSION,
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    capabilities: {
      streaming: true,
      pushNotifications: settings.pushNotifications,
      extendedAgentCard: true,
    },
    ...(settings.keysRequired
      ? {
          securitySchemes: {
            bearer: {
              httpAuthSecurityScheme: {
                scheme: 'Bearer',
                description: 'One of the API keys of the bridge (RUNBRIDGE_API_KEYS), the same as for /v1/runs.',
              },
            },
          },
          securityRequirements: [{ schemes: { bearer: { list: [] } } }],
        }
      : {}),
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills:
      envs === undefined || envs.length === 0
        ? [fallbackSkill(settings.defaultEnv)]
        : envs.map((env) => skillOf(env, extended)),
  };
}

/**
 * The card for a caller that asked for v0.3 or sent no `A2A-Version` (v0.3 clients send none): the
 * v0.3 `AgentCard` — its `url`, `preferredTransport`, `type`-tagged security schemes — with the v1.0
 * `supportedInterfaces` beside it, so a v1.0 client that asked without the header still finds its
 * interface (what the A2A SDKs serve at one URL for both).
 */
export function agentCardV03(
  envs: readonly EnvironmentSkillSource[] | undefined,
  settings: CardSettings,
  extended = false,
) {
  const {
    securitySchemes: _v1Schemes,
    securityRequirements: _v1Requirements,
    capabilities,
    ...card
  } = agentCard(envs, settings, extended);
  const url = `${settings.baseUrl}${A2A_PATH}`;
  return {
    protocolVersion: '0.3.0',
    ...card,
    url,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [{ url, transport: 'JSONRPC' }],
    capabilities: {
      streaming: capabilities.streaming,
      pushNotifications: capabilities.pushNotifications,
      stateTransitionHistory: false,
    },
    ...(settings.keysRequired
      ? {
          securitySchemes: {
            bearer: {
              type: 'http',
              scheme: 'bearer',
              description: 'One of the API keys of the bridge (RUNBRIDGE_API_KEYS), the same as for /v1/runs.',
            },
          },
          security: [{ bearer: [] }],
        }
      : {}),
    supportsAuthenticatedExtendedCard: true,
  };
}

/** The card in the shape of `version`. */
export function agentCardFor(
  version: A2aVersion,
  envs: readonly EnvironmentSkillSource[] | undefined,
  settings: CardSettings,
  extended = false,
): Record<string, unknown> {
  return version === '1.0' ? agentCard(envs, settings, extended) : agentCardV03(envs, settings, extended);
}
