/** A node of the walk: a value, and how it was reached (for the path, built only when needed). */
interface Visit {
  value: unknown;
  key: string;
  parent: Visit | undefined;
}

/**
 * Where `value` (parsed JSON) holds a key named `__proto__` — the keys that lead to it, the last one
 * `__proto__` (`['metadata', 'deep', '0', '__proto__']`) — or undefined when it holds none. `JSON.parse` keeps such a key as
 * data, but JavaScript readers further on (zod's records, object spreads, a client copying an echo)
 * take it for the object's prototype and drop it or worse, so the API refuses it (docs/protocol.md
 * §2.5). Walked without recursion, so a body nested thousands deep costs no stack.
 */
export function protoKeyPath(value: unknown): string[] | undefined {
  const stack: Visit[] = [{ value, key: '', parent: undefined }];
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const node = visit.value;
    if (node === null || typeof node !== 'object') continue;
    for (const key of Object.keys(node)) {
      if (key === '__proto__') return pathOf({ value: undefined, key, parent: visit });
      stack.push({ value: (node as Record<string, unknown>)[key], key, parent: visit });
    }
  }
  return undefined;
}

function pathOf(visit: Visit): string[] {
  const keys: string[] = [];
  for (let at: Visit | undefined = visit; at?.parent !== undefined; at = at.parent) keys.push(at.key);
  return keys.reverse();
}
