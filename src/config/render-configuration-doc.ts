import { CONFIRM_WAIT_SECONDS } from '../protocol/confirm-wait.js';
import { settingsOf } from './setting.js';
import { settings } from './settings.js';

const INTRO = `# Configuration

<!-- Generated from src/config/settings.ts by \`npm run docs\`: edit the table there, not this page. -->

Every setting is an environment variable; a bad value stops start-up with a message naming the
variable, what it accepts and what it got.`;

const OUTRO = `Byte counts are characters of JSON (for ASCII text, bytes).

How long a run waits on a person is set per run, not here: \`approval.timeout_seconds\` and
\`input_timeout_seconds\` in \`POST /v1/runs\` (default 600 s each, at most a day; see
[api.md](api.md#a-person-in-the-loop)). Fixed bounds: 16 unread messages per run, ${CONFIRM_WAIT_SECONDS} s for a run to
confirm a decision.

The command line reads two more: \`runbridge run --server\` sends \`RUNBRIDGE_API_KEY\` as its bearer key
when \`--api-key\` is not given, and \`runbridge run\` prints without colours when \`NO_COLOR\` is set.`;

/** A markdown table cell: a `|` would end it. */
const cell = (text: string) => text.replaceAll('|', '\\|');

/** docs/configuration.md: the settings table, one row per setting in the table's order, within its prose. */
export function renderConfigurationDoc(): string {
  const rows = settingsOf(settings).map((entry) => {
    const cells = [`\`${entry.variable}\``, entry.default, entry.accepts, entry.description];
    return `| ${cells.map(cell).join(' | ')} |`;
  });
  const table = ['| variable | default | accepts | meaning |', '|---|---|---|---|', ...rows];
  return [INTRO, '', ...table, '', OUTRO, ''].join('\n');
}
