export { ConfigError } from './config-error.js';
export { loadConfig } from './load-config.js';
export type { Config, WebhookSettings } from './settings.js';
