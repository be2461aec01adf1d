import { type SeededRandom, seededRandom } from '../seeded-random.js';
import type { WorkspaceTask } from './workspace-tasks.js';
import {
  FILLER_WORDS,
  INI_FILES,
  METRIC_FILES,
  makeValue,
  NOTE_FILES,
  NOTE_SENTENCES,
  WORKSPACE_KEYS,
} from './workspace-vocabulary.js';

/**
 * Generates a workspace's file tree from its task: 11–24 files of configuration, logs (the first log
 * always over 4096 characters, so `read_file` results are chunked by ORS), notes, CSV exports and
 * archived logs. Other keys with their own values fill the files as noise; the task's key appears with
 * a value exactly once, in a file of the task's `location`. Near misses (`<key>_previous = …`) and
 * mentions without a value make a careless reader pick the wrong line.
 */

type FileKind = 'readme' | 'ini' | 'json' | 'log' | 'notes' | 'kv-csv' | 'metrics-csv';
/** The kinds whose notation can hold a `key → value` record. */
type RecordKind = 'log' | 'ini' | 'notes' | 'kv-csv';

interface Draft<Kind extends FileKind = FileKind> {
  path: string;
  kind: Kind;
  lines: string[];
}

/** The generated files, path → content, sorted by path. */
export function generateWorkspaceFiles(task: WorkspaceTask): Map<string, string> {
  const random = seededRandom(`workspace-files:${task.seed}`);
  const filler = fillerKeys(random, task.key);
  const drafts: Draft[] = [
    readme(),
    ...random
      .shuffle(INI_FILES)
      .slice(0, random.int(2, 4))
      .map((path) => iniFile(random, path, filler)),
    featuresFile(random, filler),
    ...logFiles(random, filler),
    ...archiveFiles(random, filler),
    ...random
      .shuffle(NOTE_FILES)
      .slice(0, random.int(2, 5))
      .map(([path, title]) => notesFile(random, path, title, filler)),
    settingsExport(random, filler),
    ...random
      .shuffle(METRIC_FILES)
      .slice(0, random.int(1, 4))
      .map((path) => metricsFile(random, path)),
  ];

  const byKind = <Kind extends RecordKind>(...kinds: Kind[]): Array<Draft<Kind>> =>
    drafts.filter((draft): draft is Draft<Kind> => (kinds as FileKind[]).includes(draft.kind));
  const hidingPlaces: Record<WorkspaceTask['location'], Array<Draft<RecordKind>>> = {
    logs: byKind('log').filter((draft) => draft.path.startsWith('logs/')),
    archive: byKind('log').filter((draft) => draft.path.startsWith('archive/')),
    config: byKind('ini'),
    notes: byKind('notes'),
    data: byKind('kv-csv'),
  };
  insertRecord(random, random.pick(hidingPlaces[task.location]), task.key, task.answer);

  if (random.chance(0.6)) {
    let stale = makeValue(random);
    if (stale === task.answer) stale += '0';
    insertRecord(random, random.pick(byKind('log', 'ini', 'notes', 'kv-csv')), `${task.key}_previous`, stale);
  }
  if (random.chance(0.5)) {
    const notes = random.pick(byKind('notes'));
    notes.lines.splice(
      random.int(2, notes.lines.length),
      0,
      `- Remember to double-check the ${task.key} setting before the next release.`,
    );
  }

  drafts.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return new Map(drafts.map((draft) => [draft.path, `${draft.lines.join('\n')}\n`]));
}

/** Other keys, each with one fixed value, handed out round-robin. */
function fillerKeys(random: SeededRandom, taskKey: string): () => [string, string] {
  const keys = random.shuffle(WORKSPACE_KEYS.filter((key) => key !== taskKey));
  const values = new Map<string, string>();
  let next = 0;
  return () => {
    const key = keys[next++ % keys.length] as string;
    let value = values.get(key);
    if (value === undefined) {
      value = makeValue(random);
      values.set(key, value);
    }
    return [key, value];
  };
}

/** Adds `key` with `value` to a file in that file's own notation, at a random line of its body. */
function insertRecord(random: SeededRandom, draft: Draft<RecordKind>, key: string, value: string): void {
  const lines = draft.lines;
  switch (draft.kind) {
    case 'log': {
      const at = random.int(1, lines.length);
      // Reuse the previous line's timestamp so the log stays in time order.
      const timestamp = (lines[at - 1] as string).slice(0, 20);
      lines.splice(at, 0, `${timestamp} INFO  recorded ${key}=${value} (source=${random.pick(FILLER_WORDS)})`);
      return;
    }
    case 'ini':
      lines.splice(random.int(2, lines.length), 0, `${key} = ${value}`);
      return;
    case 'notes':
      lines.splice(random.int(2, lines.length), 0, `- The value recorded for ${key} is ${value}.`);
      return;
    case 'kv-csv':
      lines.splice(random.int(1, lines.length), 0, `${key},${value},2024-03-${day(random)}`);
      return;
  }
}

const pad = (value: number): string => String(value).padStart(2, '0');
const day = (random: SeededRandom): string => pad(random.int(1, 28));

function readme(): Draft {
  return {
    path: 'README.md',
    kind: 'readme',
    lines: [
      '# Service workspace',
      '',
      'Configuration lives in config/, application logs in logs/, meeting notes in notes/ and CSV exports in data/.',
      'Logs older than a month are moved to archive/.',
    ],
  };
}

function iniFile(random: SeededRandom, path: string, filler: () => [string, string]): Draft {
  const section = path.slice('config/'.length, -'.ini'.length);
  const lines = [`# ${section} settings, exported 2024-03-${day(random)}`, `[${section}]`];
  for (let i = random.int(5, 10); i > 0; i--) {
    const [key, value] = filler();
    lines.push(`${key} = ${value}`);
  }
  return { path, kind: 'ini', lines };
}

function featuresFile(random: SeededRandom, filler: () => [string, string]): Draft {
  const limits: Record<string, string> = {};
  for (let i = random.int(3, 6); i > 0; i--) {
    const [key, value] = filler();
    limits[key] = value;
  }
  const features = Object.fromEntries(
    random
      .shuffle(FILLER_WORDS)
      .slice(0, 4)
      .map((word) => [`new_${word}_page`, random.chance(0.5)]),
  );
  return {
    path: 'config/features.json',
    kind: 'json',
    lines: JSON.stringify({ features, limits }, null, 2).split('\n'),
  };
}

function logLines(random: SeededRandom, date: string, count: number, filler: () => [string, string]): string[] {
  const lines: string[] = [];
  let seconds = random.int(0, 3600);
  for (let i = 0; i < count; i++) {
    seconds += random.int(1, 90);
    const timestamp = `${date}T${pad(Math.floor(seconds / 3600) % 24)}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}Z`;
    const level = random.pick(['INFO ', 'INFO ', 'INFO ', 'DEBUG', 'WARN ']);
    lines.push(`${timestamp} ${level} ${logMessage(random, filler)}`);
  }
  return lines;
}

function logMessage(random: SeededRandom, filler: () => [string, string]): string {
  const roll = random.int(1, 100);
  if (roll <= 40) {
    return `GET /api/${random.pick(FILLER_WORDS)} status=${random.pick([200, 200, 200, 201, 304, 404, 500])} duration_ms=${random.int(2, 900)}`;
  }
  if (roll <= 60) return `worker ${random.int(1, 16)} picked job ${random.int(0x10000, 0xfffff).toString(16)}`;
  if (roll <= 75) return `cache hit ratio=0.${random.int(10, 99)} evictions=${random.int(0, 500)}`;
  if (roll <= 88)
    return `connection pool size=${random.int(2, 64)} idle=${random.int(0, 10)} waiting=${random.int(0, 5)}`;
  if (roll <= 97) return `scheduled task ${random.pick(FILLER_WORDS)}-sync completed in ${random.int(1, 120)}s`;
  const [key, value] = filler();
  return `recorded ${key}=${value} (source=${random.pick(FILLER_WORDS)})`;
}

function logFiles(random: SeededRandom, filler: () => [string, string]): Draft[] {
  const days = random
    .shuffle(Array.from({ length: 28 }, (_, index) => index + 1))
    .slice(0, random.int(2, 5))
    .sort((a, b) => a - b);
  return days.map((dayOfMonth, index) => {
    const date = `2024-03-${pad(dayOfMonth)}`;
    // The first log is always long (150+ lines of ~70 characters), so every workspace has a file
    // whose read_file result exceeds one 4096-character ORS chunk.
    const count = index === 0 ? random.int(150, 260) : random.int(60, 260);
    return { path: `logs/app-${date}.log`, kind: 'log', lines: logLines(random, date, count, filler) };
  });
}

function archiveFiles(random: SeededRandom, filler: () => [string, string]): Draft[] {
  const months = random
    .shuffle(['2023-09', '2023-10', '2023-11', '2023-12', '2024-01'])
    .slice(0, random.int(1, 3))
    .sort();
  return months.map((month) => ({
    path: `archive/app-${month}.log`,
    kind: 'log',
    lines: logLines(random, `${month}-${day(random)}`, random.int(100, 200), filler),
  }));
}

function notesFile(random: SeededRandom, path: string, title: string, filler: () => [string, string]): Draft {
  const lines = [`# ${title}`, ''];
  for (let i = random.int(4, 10); i > 0; i--) {
    if (random.chance(0.25)) {
      const [key, value] = filler();
      lines.push(`- The value recorded for ${key} is ${value}.`);
    } else {
      lines.push(`- ${random.pick(NOTE_SENTENCES)}`);
    }
  }
  return { path, kind: 'notes', lines };
}

function settingsExport(random: SeededRandom, filler: () => [string, string]): Draft {
  const lines = ['key,value,updated'];
  for (let i = random.int(8, 25); i > 0; i--) {
    const [key, value] = filler();
    lines.push(`${key},${value},2024-03-${day(random)}`);
  }
  return { path: 'data/settings-export.csv', kind: 'kv-csv', lines };
}

function metricsFile(random: SeededRandom, path: string): Draft {
  const lines = ['date,requests,errors,p95_ms'];
  const rows = random.int(20, 80);
  for (let i = 0; i < rows; i++) {
    lines.push(
      `2024-02-${pad((i % 28) + 1)}T${pad(i % 24)}:00Z,${random.int(1000, 90_000)},${random.int(0, 400)},${random.int(20, 1500)}`,
    );
  }
  return { path, kind: 'metrics-csv', lines };
}
